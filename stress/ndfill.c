// SPDX-License-Identifier: GPL-2.0
/*
 * ndfill: full-disk and inode-exhaustion test.
 *
 *   ndfill MNT [-r ROUNDS] [-I MAXINODES] [-T TOLERANCE]
 *
 * In MNT/fill:
 *  1. baseline: sync, drop dentries and inodes (drop_caches=2), read
 *     dentry-state, inode-nr and statfs;
 *  2. write one big file until ENOSPC, then ROUNDS times try to create,
 *     write, mkdir and symlink new names, and unlink what worked: only
 *     ENOSPC may fail them, and a name whose create failed must not be
 *     visible (stat, and readdir at the end);
 *  3. remove the big file, create empty files until inodes run out
 *     (ENOSPC), then ROUNDS times: create/mkdir/symlink must fail with
 *     ENOSPC and leave nothing visible, link and rename must still work,
 *     and unlink+create must reuse the freed inode;
 *  4. remove everything, sync, drop caches again: free blocks and inodes
 *     back to the baseline, and nr_dentry, nr_negative and nr_inodes back
 *     within TOLERANCE (default 64) of the baseline.
 *
 * Why a tolerance, and why 64: both samples are taken right after
 * drop_caches=2, which frees every unused dentry and inode in the system,
 * so what is left is what something holds (open files, cwds, mounts),
 * the same at both samples, plus what other guest processes happen to be
 * doing at that moment (a few dozen /proc and 9p dentries at most, measured
 * below 10 on a quiet guest).  A leak on the paths this test drives
 * (thousands of creates, most of them failing) would show up as hundreds
 * or thousands: 64 separates the two.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "../guest/ndt.h"

#define PERDIR 1000
#define MAXSUB 1000

static char base[4096];
static int basefd;
static long rounds = 200, max_inodes = 10000000, tolerance = 64;
static int do_blocks = 1, do_inodes = 1;

struct counters {
	long long nr_dentry, nr_negative, nr_inodes;
	unsigned long long bfree, ffree;
};

static void drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	sync();
	if (fd < 0 || write(fd, "2", 1) != 1)
		tap_bail(errno, "drop_caches");
	close(fd);
}

static struct counters sample(const char *mnt)
{
	struct counters c;
	struct dentry_state ds;
	struct statvfs sv;
	FILE *f;

	drop_caches();
	ds = dentry_state();
	c.nr_dentry = ds.nr_dentry;
	c.nr_negative = ds.nr_negative;
	f = fopen("/proc/sys/fs/inode-nr", "r");
	if (!f || fscanf(f, "%lld", &c.nr_inodes) != 1)
		tap_bail(errno, "inode-nr");
	fclose(f);
	if (statvfs(mnt, &sv))
		tap_bail(errno, "statvfs %s", mnt);
	c.bfree = sv.f_bfree;
	c.ffree = sv.f_ffree;
	return c;
}

static int err_of(int ret)
{
	return ret < 0 ? errno : 0;
}

static long nfail, nvisible, ncreated, errs_enospc, errs_other;
static char first[8][200];
static int nfirst;

static void bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void bad(const char *fmt, ...)
{
	va_list ap;

	if (nfirst < 8) {
		va_start(ap, fmt);
		vsnprintf(first[nfirst++], sizeof(first[0]), fmt, ap);
		va_end(ap);
	}
	nfail++;
}

static void report(int extra_ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(int extra_ok, const char *fmt, ...)
{
	char buf[400];
	va_list ap;
	int i;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	tap_ok(!nfail && extra_ok, "%s (%ld problems)", buf, nfail);
	for (i = 0; i < nfirst; i++)
		tap_diag("%s", first[i]);
	nfail = nfirst = 0;
}

/* A create-like result: 0, or ENOSPC, which must leave no name. */
static int expect_enospc_or_ok(int e, const char *what, const char *name, int must_fail)
{
	struct stat st;

	if (!e) {
		if (must_fail)
			bad("%s %s succeeded with no space left", what, name);
		ncreated++;
		return 0;
	}
	if (e == ENOSPC) {
		errs_enospc++;
		e = err_of(fstatat(basefd, name, &st, AT_SYMLINK_NOFOLLOW));
		if (e != ENOENT) {
			nvisible++;
			bad("%s %s failed with ENOSPC, but stat says %s", what, name,
			    e ? strerror(e) : "it exists");
		}
		return ENOSPC;
	}
	errs_other++;
	bad("%s %s: %s", what, name, strerror(e));
	return e;
}

/* Names in BASE that readdir lists and that start with PREFIX. */
static long count_names(const char *prefix)
{
	int fd = openat(basefd, ".", O_RDONLY | O_DIRECTORY);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;
	long n = 0;

	if (!d)
		tap_bail(errno, "readdir %s", base);
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}

/* Try every kind of create on NAME (suffixes c, d, s); undo what worked. */
static void try_creates(long r, int must_fail)
{
	static const char target[] = "a symlink target long enough to need a block of its own "
		"on ext2 and ext4, that is more than sixty characters";
	char name[64];
	int fd, e;

	snprintf(name, sizeof(name), "t%ldc", r);
	fd = openat(basefd, name, O_CREAT | O_EXCL | O_WRONLY, 0644);
	e = fd < 0 ? errno : 0;
	if (!expect_enospc_or_ok(e, "create", name, must_fail)) {
		ssize_t n = write(fd, "x", 1);

		if (n < 0 && errno != ENOSPC)
			bad("write %s: %s", name, strerror(errno));
		else if (n < 0)
			errs_enospc++;
		close(fd);
		if (unlinkat(basefd, name, 0))
			bad("unlink %s: %s", name, strerror(errno));
	}
	snprintf(name, sizeof(name), "t%ldd", r);
	e = err_of(mkdirat(basefd, name, 0755));
	if (!expect_enospc_or_ok(e, "mkdir", name, must_fail) &&
	    unlinkat(basefd, name, AT_REMOVEDIR))
		bad("rmdir %s: %s", name, strerror(errno));
	snprintf(name, sizeof(name), "t%lds", r);
	e = err_of(symlinkat(target, basefd, name));
	if (!expect_enospc_or_ok(e, "symlink", name, must_fail) && unlinkat(basefd, name, 0))
		bad("unlink %s: %s", name, strerror(errno));
}

int main(int argc, char **argv)
{
	struct counters c0, c1;
	const char *mnt;
	char buf[1 << 20], name[64];
	long mib = 0, r, inodes = 0, nsub = 0, i, npad = 0;
	long long neg0;
	int fd, c, e = 0, exhausted = 0;
	struct stat st;

	if (argc < 2) {
		fprintf(stderr, "usage: ndfill MNT [-r ROUNDS] [-I MAXINODES] [-T TOLERANCE] "
			"[-b blocks only | -i inodes only]\n");
		return 2;
	}
	mnt = argv[1];
	optind = 2;
	while ((c = getopt(argc, argv, "r:I:T:bi")) != -1) {
		switch (c) {
		case 'b': do_inodes = 0; break;
		case 'i': do_blocks = 0; break;
		case 'r': rounds = atol(optarg); break;
		case 'I': max_inodes = atol(optarg); break;
		case 'T': tolerance = atol(optarg); break;
		default: return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	tap_plan(8);
	snprintf(base, sizeof(base), "%s/fill", mnt);
	c0 = sample(mnt);
	if (mkdir(base, 0755))
		tap_bail(errno, "mkdir %s", base);
	basefd = open(base, O_RDONLY | O_DIRECTORY);
	if (basefd < 0)
		tap_bail(errno, "open %s", base);
	tap_ok(1, "baseline: nr_dentry %lld, nr_negative %lld, nr_inodes %lld, "
	       "%llu free blocks, %llu free inodes", c0.nr_dentry, c0.nr_negative,
	       c0.nr_inodes, c0.bfree, c0.ffree);

	/* 1. blocks */
	if (!do_blocks) {
		tap_skip("-i: inodes only", "filled to ENOSPC");
		tap_skip("-i: inodes only", "behaviour without space");
		goto inodes;
	}
	memset(buf, 'f', sizeof(buf));
	fd = openat(basefd, "big", O_CREAT | O_WRONLY, 0644);
	if (fd < 0)
		tap_bail(errno, "create big");
	/*
	 * Where the filesystem can (ext4, tmpfs), reserve the space with
	 * fallocate in 16 MiB steps: the same block allocator, the same
	 * ENOSPC, without copying 256 MiB through a KASAN kernel in TCG.
	 * ext2 has no fallocate: it is written.  Then write to the end.
	 */
	for (;;) {
		if (fallocate(fd, 0, (off_t)mib << 20, 16 << 20)) {
			if (errno != EOPNOTSUPP && errno != ENOSPC)
				bad("fallocate: %s", strerror(errno));
			break;
		}
		mib += 16;
	}
	if (lseek(fd, (off_t)mib << 20, SEEK_SET) < 0)
		bad("lseek: %s", strerror(errno));
	for (;;) {
		ssize_t n = write(fd, buf, sizeof(buf));

		if (n < 0) {
			e = errno;
			break;
		}
		if (n < (ssize_t)sizeof(buf)) {
			/* the next write says why */
			continue;
		}
		mib++;
	}
	if (e == ENOSPC && fsync(fd) && errno != ENOSPC)
		bad("fsync big: %s", strerror(errno));
	close(fd);
	/*
	 * ext4 keeps a margin of clusters back from delayed allocation: use
	 * it up with directories (one block each) until mkdir says ENOSPC.
	 */
	{
		struct statvfs sv;

		if (e == ENOSPC && !statvfs(mnt, &sv) && sv.f_bfree > 0) {
			for (npad = 0; npad < 100000; npad++) {
				snprintf(name, sizeof(name), "pad%ld", npad);
				if (mkdirat(basefd, name, 0755))
					break;
			}
			if (errno != ENOSPC)
				bad("mkdir %s: %s", name, strerror(errno));
		}
	}
	tap_ok(e == ENOSPC, "filled to ENOSPC: %ld MiB written, then %s; %ld directories "
	       "to use up the rest", mib, strerror(e), npad);
	tap_metric("fill_mib", mib);

	neg0 = nr_negative();
	ncreated = errs_enospc = errs_other = nvisible = 0;
	for (r = 0; r < rounds; r++)
		try_creates(r, 0);
	if (count_names("t"))
		bad("%ld names left after create/unlink on a full disk", count_names("t"));
	report(errs_enospc > 0, "no space: %ld creates failed with ENOSPC (%ld other errors), "
	       "%ld worked and were removed, failed names not visible", errs_enospc,
	       errs_other, ncreated);
	tap_metric("enospc_errors", errs_enospc);
	tap_metric("nr_negative_delta_enospc", nr_negative() - neg0);
	if (unlinkat(basefd, "big", 0))
		tap_bail(errno, "unlink big");
	for (r = 0; r < npad; r++) {
		snprintf(name, sizeof(name), "pad%ld", r);
		if (unlinkat(basefd, name, AT_REMOVEDIR))
			bad("rmdir %s: %s", name, strerror(errno));
	}
	sync();

inodes:
	if (!do_inodes) {
		tap_skip("-b: blocks only", "inodes exhausted");
		tap_skip("-b: blocks only", "behaviour without inodes");
		goto cleanup;
	}
	/* 2. inodes */
	for (nsub = 0; nsub < MAXSUB && !exhausted && inodes < max_inodes; nsub++) {
		int sfd;

		snprintf(name, sizeof(name), "i%ld", nsub);
		if (mkdirat(basefd, name, 0755)) {
			if (errno == ENOSPC) {
				exhausted = 1;
				break;
			}
			tap_bail(errno, "mkdir %s", name);
		}
		inodes++;
		sfd = openat(basefd, name, O_RDONLY | O_DIRECTORY);
		if (sfd < 0)
			tap_bail(errno, "open %s", name);
		for (i = 0; i < PERDIR && inodes < max_inodes; i++) {
			snprintf(name, sizeof(name), "%ld", i);
			fd = openat(sfd, name, O_CREAT | O_EXCL | O_WRONLY, 0644);
			if (fd < 0) {
				if (errno != ENOSPC)
					tap_bail(errno, "create i%ld/%s", nsub, name);
				exhausted = 1;
				break;
			}
			close(fd);
			inodes++;
		}
		close(sfd);
	}
	if (!exhausted) {
		tap_skip("inode cap reached first", "inodes exhausted (stopped at %ld inodes)", inodes);
		tap_skip("inode cap reached first", "behaviour without inodes");
	} else {
		struct statvfs sv;

		statvfs(mnt, &sv);
		tap_ok(1, "inodes exhausted after %ld new inodes (%lu free)", inodes,
		       (unsigned long)sv.f_ffree);
		tap_metric("inodes_created", inodes);
		neg0 = nr_negative();
		ncreated = errs_enospc = errs_other = nvisible = 0;
		for (r = 0; r < rounds; r++) {
			/* nothing that needs an inode can work */
			try_creates(r, 1);
			/* link and rename need none */
			e = err_of(linkat(basefd, "i0/0", basefd, "lnk", 0));
			if (e && e != ENOSPC)	/* the directory may need a block */
				bad("link i0/0 lnk: %s", strerror(e));
			if (!e && renameat(basefd, "lnk", basefd, "lnk2"))
				bad("rename lnk lnk2: %s", strerror(errno));
			if (!e && unlinkat(basefd, "lnk2", 0))
				bad("unlink lnk2: %s", strerror(errno));
			if (!e && !fstatat(basefd, "lnk", &st, 0))
				bad("lnk visible after rename");
			/* a freed inode can be used again */
			snprintf(name, sizeof(name), "i0/%ld", r % PERDIR);
			if (unlinkat(basefd, name, 0)) {
				bad("unlink %s: %s", name, strerror(errno));
				continue;
			}
			fd = openat(basefd, name, O_CREAT | O_EXCL | O_WRONLY, 0644);
			if (fd < 0)
				bad("create %s after unlink: %s", name, strerror(errno));
			else
				close(fd);
		}
		if (count_names("t") || count_names("lnk"))
			bad("names left after failed creates");
		report(errs_enospc >= 3 * rounds, "no inodes: %ld creates failed with ENOSPC "
		       "(%ld other errors, %ld worked), failed names not visible, link, "
		       "rename and unlink+create work", errs_enospc, errs_other, ncreated);
		tap_metric("nr_negative_delta_inodes", nr_negative() - neg0);
	}

cleanup:
	/* 3. clean up */
	for (i = 0; i < nsub + 1; i++) {
		long j;
		int sfd;

		snprintf(name, sizeof(name), "i%ld", i);
		sfd = openat(basefd, name, O_RDONLY | O_DIRECTORY);
		if (sfd < 0) {
			if (errno != ENOENT)
				bad("open %s: %s", name, strerror(errno));
			continue;
		}
		for (j = 0; j < PERDIR; j++) {
			char n2[32];

			snprintf(n2, sizeof(n2), "%ld", j);
			if (unlinkat(sfd, n2, 0) && errno != ENOENT)
				bad("unlink %s/%s: %s", name, n2, strerror(errno));
		}
		close(sfd);
		if (unlinkat(basefd, name, AT_REMOVEDIR))
			bad("rmdir %s: %s", name, strerror(errno));
	}
	close(basefd);
	if (rmdir(base))
		bad("rmdir %s: %s", base, strerror(errno));
	report(1, "cleanup: every name removed");

	c1 = sample(mnt);
	if (c1.ffree != c0.ffree)
		bad("free inodes %llu, baseline %llu", c1.ffree, c0.ffree);
	if (c1.bfree + 16 < c0.bfree || c1.bfree > c0.bfree + 16)
		bad("free blocks %llu, baseline %llu", c1.bfree, c0.bfree);
	report(1, "free blocks (%llu, baseline %llu) and inodes (%llu, baseline %llu) "
	       "back", c1.bfree, c0.bfree, c1.ffree, c0.ffree);
	if (c1.nr_dentry > c0.nr_dentry + tolerance)
		bad("nr_dentry %lld, baseline %lld", c1.nr_dentry, c0.nr_dentry);
	if (c1.nr_negative > c0.nr_negative + tolerance)
		bad("nr_negative %lld, baseline %lld", c1.nr_negative, c0.nr_negative);
	if (c1.nr_inodes > c0.nr_inodes + tolerance)
		bad("nr_inodes %lld, baseline %lld", c1.nr_inodes, c0.nr_inodes);
	report(1, "no dentry or inode leak after drop_caches: nr_dentry %+lld, "
	       "nr_negative %+lld, nr_inodes %+lld (tolerance %ld)",
	       c1.nr_dentry - c0.nr_dentry, c1.nr_negative - c0.nr_negative,
	       c1.nr_inodes - c0.nr_inodes, tolerance);
	tap_metric("leak_nr_dentry", c1.nr_dentry - c0.nr_dentry);
	tap_metric("leak_nr_negative", c1.nr_negative - c0.nr_negative);
	tap_metric("leak_nr_inodes", c1.nr_inodes - c0.nr_inodes);
	return tap_exit();
}
