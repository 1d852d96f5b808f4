// SPDX-License-Identifier: GPL-2.0
/*
 * negfail: the negative dentries each kind of name removal and failed
 * create leaves, under every negdentry= policy.
 *
 *   negfail MOUNTPOINT [K]
 *
 * Each case does K operations on K distinct names and reads nr_negative
 * around them.  What each case must leave follows from the policy's
 * definition (patches 1-3: the filesystem marks the dentry at the top of
 * ->create, ->mkdir, ->mknod, ->symlink, ->link, ->unlink and ->rmdir; a
 * marked negative dentry is freed at its last dput under "lookup"; every
 * negative one under "none"; none under "all"):
 *
 *   case            reaches the fs?           all  lookup  none
 *   unlink, rmdir   yes (->unlink, ->rmdir)    K     0      0
 *   lookup miss     lookup only                K     K      0
 *   miss again      cached (or not at all)     0     0      0
 *   EEXIST          no: the name is positive   0     0      0
 *   ENAMETOOLONG    no: ->lookup refuses it    0     0      0
 *   symlink target  yes: ->symlink refuses a   K     0      0
 *    > block size    target longer than a block (1 KiB-block ext2/ext4)
 *   EACCES          no: may_o_create refuses,  K     K      0
 *                   after the lookup miss
 *   ENOSPC          yes (->mkdir, ->create)    K     0      0
 *   EDQUOT          yes (->create)             K     0      0
 *   ENOKEY (no-key  yes (->create); the miss   K     0      0
 *    encrypted dir)  before it is marked then
 *   no-key misses   lookup only                K     K      0
 *   casefolded dir  ext4 hashes no negative    0     0      0
 *                   there (unlink invalidates)
 *
 * Stock kernels behave as "all" (ext2/3/4) or "none" (tmpfs).  The
 * default round runs under the policy the harness declares for the mount
 * (NDT_EXPECT, see ndt.h); on a series kernel, rounds under each
 * negdentry= value follow (policy_rounds()).  The default round's metrics
 * carry the cross-kernel rule that follows from stock's policy and the
 * series' default (lookup on ext2/3/4, none on tmpfs): expect=same where
 * both promise the same count, expect=max:0.05 where the series promises
 * 0, expect=delta:K where stock promises 0 and the series K.  The
 * EDQUOT, casefolded and no-key cases need the variant to declare
 * usrquota, casefold or encrypt in its FEATURES=.
 */
#include "sem.h"
#include "fscrypt.h"
#include <linux/quota.h>
#include <sys/syscall.h>

static int K = 200;
static const char *mnt;

enum want { W_ZERO, W_ALL_ONLY, W_UNLESS_NONE };

static long long want_count(enum want w, enum policy p)
{
	switch (w) {
	case W_ALL_ONLY:
		return p == POLICY_ALL ? K : 0;
	case W_UNLESS_NONE:
		return p == POLICY_NONE ? 0 : K;
	default:
		return 0;
	}
}

/*
 * Report one measured case: a metric (with the cross-kernel rule in the
 * default round) and a TAP result against the policy's promise.  @ok is
 * whether the operations themselves gave the errors they should.
 */
static void report(const char *tag, enum policy p, const char *name,
		   enum want w, long long got, int ok, const char *what)
{
	long long want = want_count(w, p);
	long long tol = K / 40 > 2 ? K / 40 : 2;
	char cross[32] = "";

	if (!strcmp(tag, "default")) {
		cross_rule(cross, sizeof(cross), want_count(w, stock_policy(mnt)),
			   want_count(w, series_default(mnt)), "0.05");
	}
	printf("# metric %s_%s %lld%s\n", tag, name, got, cross);
	if (!ok) {
		tap_ok(0, "%s: %s: the operations did not fail as they should", tag, what);
		return;
	}
	tap_ok(llabs(got - want) <= tol,
	       "%s: %d %s leave %lld negative dentries (negdentry=%s: %lld)",
	       tag, K, what, got, policy_names[p], want);
}

static void path(char *buf, size_t len, const char *dir, const char *fmt, int i)
{
	char name[512];

	if (snprintf(name, sizeof(name), fmt, i) >= (int)sizeof(name) ||
	    snprintf(buf, len, "%s/%s", dir, name) >= (int)len)
		tap_bail(0, "path too long in %s", dir);
}

/* K creates with O_EXCL (or mkdirs) of dir/fmt that must fail with @err. */
static int fail_creates(const char *dir, const char *fmt, int mkdirs, int err)
{
	char p[1024];
	int i, ok = 1, fd;

	for (i = 0; i < K; i++) {
		path(p, sizeof(p), dir, fmt, i);
		if (mkdirs) {
			if (!mkdir(p, 0755) || errno != err) {
				if (ok)
					tap_diag("mkdir %s: %s, want %s", p,
						 strerror(errno), strerror(err));
				ok = 0;
			}
			continue;
		}
		fd = open(p, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd >= 0 || errno != err) {
			if (ok)
				tap_diag("create %s: %s, want %s", p,
					 fd >= 0 ? "created" : strerror(errno),
					 strerror(err));
			ok = 0;
		}
		if (fd >= 0)
			close(fd);
	}
	return ok;
}

struct user_creates {
	const char *dir, *fmt;
	int err;
};

static int user_creates_fn(void *arg)
{
	struct user_creates *u = arg;

	return fail_creates(u->dir, u->fmt, 0, u->err) ? 0 : 1;
}

static int user_touch_fn(void *arg)
{
	return touch(arg);
}

static int quotactl_set_ilimit(const char *dev, unsigned int uid, unsigned long long lim)
{
	struct if_dqblk q;

	memset(&q, 0, sizeof(q));
	q.dqb_ihardlimit = lim;
	q.dqb_isoftlimit = 0;
	q.dqb_valid = QIF_ILIMITS;
	return syscall(SYS_quotactl, QCMD(Q_SETQUOTA, USRQUOTA), dev, uid, &q) ? errno : 0;
}

static void round_under(enum policy p, const char *tag)
{
	char dir[512], sub[600], p1[1024], opts[2048], dev[1024];
	long long before, grown;
	int i, ok, r;

	snprintf(dir, sizeof(dir), "%s/negfail-%s", mnt, tag);
	if (mkdir(dir, 0755))
		tap_bail(errno, "mkdir %s", dir);

	/* unlink */
	for (i = 0; i < K; i++) {
		path(p1, sizeof(p1), dir, "u%d", i);
		if ((r = touch(p1)))
			tap_bail(r, "create %s", p1);
	}
	before = nr_negative();
	ok = 1;
	for (i = 0; i < K; i++) {
		path(p1, sizeof(p1), dir, "u%d", i);
		ok &= !unlink(p1);
	}
	report(tag, p, "unlink", W_ALL_ONLY, nr_negative() - before, ok, "unlinks");

	/* rmdir */
	for (i = 0; i < K; i++) {
		path(p1, sizeof(p1), dir, "d%d", i);
		if (mkdir(p1, 0755))
			tap_bail(errno, "mkdir %s", p1);
	}
	before = nr_negative();
	ok = 1;
	for (i = 0; i < K; i++) {
		path(p1, sizeof(p1), dir, "d%d", i);
		ok &= !rmdir(p1);
	}
	report(tag, p, "rmdir", W_ALL_ONLY, nr_negative() - before, ok, "rmdirs");

	/* lookup misses, twice */
	ok = 1;
	grown = lookup_misses(dir, "m", K, &ok);
	report(tag, p, "miss", W_UNLESS_NONE, grown, ok, "lookup misses");
	grown = lookup_misses(dir, "m", K, &ok);
	report(tag, p, "miss_again", W_ZERO, grown, ok, "repeated lookup misses");

	/* EEXIST: O_EXCL creates and mkdirs over existing files */
	for (i = 0; i < K; i++) {
		path(p1, sizeof(p1), dir, "e%d", i);
		if ((r = touch(p1)))
			tap_bail(r, "create %s", p1);
	}
	before = nr_negative();
	ok = fail_creates(dir, "e%d", 0, EEXIST) && fail_creates(dir, "e%d", 1, EEXIST);
	report(tag, p, "eexist", W_ZERO, nr_negative() - before, ok,
	       "O_EXCL creates and mkdirs failing with EEXIST");

	/* ENAMETOOLONG: a 300-byte component */
	{
		char fmt[320];

		memset(fmt, 'n', 296);
		strcpy(fmt + 296, "%03d");
		before = nr_negative();
		ok = fail_creates(dir, fmt, 0, ENAMETOOLONG) &&
		     fail_creates(dir, fmt, 1, ENAMETOOLONG);
		report(tag, p, "enametoolong", W_ZERO, nr_negative() - before, ok,
		       "creates and mkdirs failing with ENAMETOOLONG");
	}

	/*
	 * ENAMETOOLONG from ->symlink: a target longer than a block (ext2 and
	 * ext4 refuse it in ->symlink, after the lookup miss and the mark),
	 * possible only where blocks are smaller than PATH_MAX.
	 */
	{
		struct statvfs sv;
		static char target[4096];

		if (!statvfs(dir, &sv) && sv.f_bsize < sizeof(target) - 1 && !is_tmpfs(mnt)) {
			memset(target, 't', sv.f_bsize + 1);
			target[sv.f_bsize + 1] = '\0';
			before = nr_negative();
			ok = 1;
			for (i = 0; i < K; i++) {
				path(p1, sizeof(p1), dir, "l%d", i);
				if (!symlink(target, p1) || errno != ENAMETOOLONG) {
					if (ok)
						tap_diag("symlink %s: %s, want ENAMETOOLONG", p1,
							 strerror(errno));
					ok = 0;
				}
			}
			report(tag, p, "symlink_toolong", W_ALL_ONLY, nr_negative() - before, ok,
			       "symlinks with a target longer than a block (ENAMETOOLONG in ->symlink)");
		} else {
			tap_skip("blocks hold any target", "%s: symlink target longer than a block", tag);
		}
	}

	/* EACCES: an unprivileged user creating in a root-owned 0755 dir */
	{
		struct user_creates u = { dir, "a%d", EACCES };

		if (chmod(dir, 0755))
			tap_bail(errno, "chmod");
		before = nr_negative();
		r = as_user(user_creates_fn, &u);
		report(tag, p, "eacces", W_UNLESS_NONE, nr_negative() - before, r == 0,
		       "creates by uid 65534 failing with EACCES");
	}

	/* EDQUOT: uid 65534 over an inode hard limit of 1 */
	mount_opts(mnt, opts, sizeof(opts));
	if (feature("usrquota", strstr(opts, "usrquota") != NULL)) {
		if (!mount_source(mnt, dev, sizeof(dev)))
			tap_bail(0, "no device for %s in /proc/mounts", mnt);
		struct user_creates u = { sub, "q%d", EDQUOT };

		snprintf(sub, sizeof(sub), "%s/quota", dir);
		if (mkdir(sub, 0777) || chmod(sub, 0777))
			tap_bail(errno, "mkdir %s", sub);
		r = quotactl_set_ilimit(dev, SEM_UID, 1);
		if (r)
			tap_bail(r, "quotactl Q_SETQUOTA on %s", dev);
		/* the user's one inode: a create that works */
		snprintf(p1, sizeof(p1), "%s/first", sub);
		if (as_user(user_touch_fn, p1) != 0 || exists(p1) != 1)
			tap_bail(0, "uid %d could not create %s", SEM_UID, p1);
		before = nr_negative();
		r = as_user(user_creates_fn, &u);
		report(tag, p, "edquot", W_ALL_ONLY, nr_negative() - before, r == 0,
		       "creates by uid 65534 failing with EDQUOT");
		quotactl_set_ilimit(dev, SEM_UID, 0);
	} else {
		tap_skip(NO_FEATURE("usrquota"), "%s: EDQUOT", tag);
	}

	/* casefolded directory (SETUP made MNT/ci with chattr +F) */
	snprintf(sub, sizeof(sub), "%s/ci", mnt);
	if (feature("casefold", is_casefolded(sub))) {
		snprintf(sub, sizeof(sub), "%s/ci/negfail-%s", mnt, tag);
		if (mkdir(sub, 0755))
			tap_bail(errno, "mkdir %s", sub);
		for (i = 0; i < K; i++) {
			path(p1, sizeof(p1), sub, "CU%d", i);
			if ((r = touch(p1)))
				tap_bail(r, "create %s", p1);
		}
		before = nr_negative();
		ok = 1;
		for (i = 0; i < K; i++) {
			path(p1, sizeof(p1), sub, "cu%d", i);	/* other case */
			ok &= !unlink(p1);
		}
		report(tag, p, "ci_unlink", W_ZERO, nr_negative() - before, ok,
		       "unlinks (by another case) in a casefolded dir");
		before = nr_negative();
		for (i = 0; i < K; i++) {
			path(p1, sizeof(p1), sub, "Cu%d", i);
			ok &= exists(p1) == 0;
		}
		report(tag, p, "ci_miss", W_ZERO, nr_negative() - before, ok,
		       "lookup misses in a casefolded dir");
		rm_tree(sub);
	} else {
		tap_skip(NO_FEATURE("casefold"), "%s: casefolded unlink", tag);
		tap_skip(NO_FEATURE("casefold"), "%s: casefolded misses", tag);
	}

	/* an encrypted directory whose key is absent (no-key names) */
	snprintf(sub, sizeof(sub), "%s/enc", dir);
	if (feature("encrypt", ext_has_incompat(mnt, EXT4_FEATURE_INCOMPAT_ENCRYPT))) {
		if (mkdir(sub, 0755))
			tap_bail(errno, "mkdir %s", sub);
		r = fscrypt_set_policy_v1_nokey(sub);
		if (r)
			tap_bail(r, "FS_IOC_SET_ENCRYPTION_POLICY (v1, no key) on %s", sub);
		before = nr_negative();
		ok = 1;
		for (i = 0; i < K; i++) {
			path(p1, sizeof(p1), sub, "k%d", i);
			ok &= exists(p1) == 0;
		}
		report(tag, p, "nokey_miss", W_UNLESS_NONE, nr_negative() - before, ok,
		       "lookup misses in a no-key dir");
		before = nr_negative();
		ok = fail_creates(sub, "c%d", 0, ENOKEY);
		report(tag, p, "nokey_create", W_ALL_ONLY, nr_negative() - before, ok,
		       "creates failing with ENOKEY in a no-key dir");
	} else {
		tap_skip(NO_FEATURE("encrypt"), "%s: no-key misses", tag);
		tap_skip(NO_FEATURE("encrypt"), "%s: no-key creates", tag);
	}

	r = rm_tree(dir);
	if (r)
		tap_bail(r, "rm -r %s", dir);
}

/*
 * ENOSPC: make the filesystem full once (ext*: no free block, so a new
 * directory gets no block and a full directory no new entry block; tmpfs:
 * nr_inodes lowered to the inodes in use), then under the declared policy
 * and, on a series kernel, under each negdentry= value: K mkdirs and K
 * creates in a full directory, all failing with ENOSPC.
 */
static void enospc(void)
{
	static const enum policy each[] = { POLICY_ALL, POLICY_LOOKUP, POLICY_NONE };
	enum policy orig = expected_policy(mnt), pols[4] = { orig };
	const char *tags[4] = { "default" };
	int n = 1;
	char dir[512], full[600], p1[1024], fmt[16], data[128];
	unsigned long long files = 0;
	struct statvfs sv;
	int i, t, r, ok;
	long long before;

	snprintf(dir, sizeof(dir), "%s/negfail-enospc", mnt);
	snprintf(full, sizeof(full), "%s/full", dir);
	if (mkdir(dir, 0755) || mkdir(full, 0755))
		tap_bail(errno, "mkdir %s", full);
	if (is_tmpfs(mnt)) {
		if (statvfs(mnt, &sv))
			tap_bail(errno, "statvfs %s", mnt);
		files = sv.f_files;
		snprintf(data, sizeof(data), "nr_inodes=%llu",
			 (unsigned long long)(sv.f_files - sv.f_ffree));
		if (mount(NULL, mnt, NULL, MS_REMOUNT, data))
			tap_bail(errno, "remount %s %s", mnt, data);
	} else {
		r = fill_blocks(dir);
		if (r)
			tap_bail(r, "filling %s", mnt);
		/* fill the directory's blocks with entries */
		for (i = 0; i < 100000; i++) {
			path(p1, sizeof(p1), full, "p%06d", i);
			if ((r = touch(p1)))
				break;
		}
		if (r != ENOSPC)
			tap_bail(r, "filling directory %s", full);
		tap_diag("full after %d entries in %s", i, full);
	}
	for (t = 0; expect_series() && t < 3; t++, n++) {
		pols[n] = each[t];
		tags[n] = policy_names[each[t]];
	}
	for (t = 0; t < n; t++) {
		if (t > 0 && (r = set_policy(mnt, pols[t])))
			tap_bail(r, "remount %s negdentry=%s", mnt, policy_names[pols[t]]);
		snprintf(fmt, sizeof(fmt), "s%d%%05d", t);
		before = nr_negative();
		ok = fail_creates(dir, fmt, 1, ENOSPC);
		report(tags[t], pols[t], "enospc_mkdir", W_ALL_ONLY,
		       nr_negative() - before, ok, "mkdirs failing with ENOSPC");
		snprintf(fmt, sizeof(fmt), "q%d%%05d", t);
		before = nr_negative();
		ok = fail_creates(full, fmt, 0, ENOSPC);
		report(tags[t], pols[t], "enospc_create", W_ALL_ONLY,
		       nr_negative() - before, ok, "creates failing with ENOSPC");
	}
	if (n > 1 && (r = set_policy(mnt, orig)))
		tap_bail(r, "remount %s negdentry=%s", mnt, policy_names[orig]);
	if (is_tmpfs(mnt)) {
		snprintf(data, sizeof(data), "nr_inodes=%llu", files);
		if (mount(NULL, mnt, NULL, MS_REMOUNT, data))
			tap_bail(errno, "remount %s %s", mnt, data);
	} else {
		unfill_blocks(dir);
	}
	r = rm_tree(dir);
	if (r)
		tap_bail(r, "rm -r %s", dir);
	sync();
}

int main(int argc, char **argv)
{
	mnt = test_args(argc, argv, "K", &K);
	tap_begin();
	tap_diag("%s: K=%d", mnt, K);
	policy_rounds(mnt, round_under);
	enospc();
	return tap_end();
}
