/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers for the guest-side tests: dcache counters, the mount a
 * test runs on, and the negdentry= policy in force there.
 */
#ifndef NDT_H
#define NDT_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tap.h"

/* /proc/sys/fs/dentry-state: nr_dentry nr_unused age_limit want_pages nr_negative dummy */
struct dentry_state {
	long long nr_dentry, nr_unused, age_limit, want_pages, nr_negative;
};

static inline struct dentry_state dentry_state(void)
{
	struct dentry_state ds;
	FILE *f = fopen("/proc/sys/fs/dentry-state", "r");

	if (!f || fscanf(f, "%lld %lld %lld %lld %lld", &ds.nr_dentry,
			 &ds.nr_unused, &ds.age_limit, &ds.want_pages,
			 &ds.nr_negative) != 5)
		tap_bail(errno, "cannot read /proc/sys/fs/dentry-state");
	fclose(f);
	return ds;
}

static inline long long nr_negative(void)
{
	return dentry_state().nr_negative;
}

/*
 * The slack of a global nr_negative count over @names new names created and
 * unlinked in @dirs directories, derived from what it must allow rather
 * than copied from a run:
 *
 *   4            negatives the rest of the idle guest makes or drops while
 *                a step runs;
 *   4 x @dirs    ext2/ext4 keep a directory's first unlink since its inode
 *                was read, and a directory that saw names come back
 *                carries a comeback count of at most 12, which new names
 *                (-4 at each create) let at most 3 more unlinks keep;
 *   4 x F        the per-name table's false positives: a new name's 16-bit
 *                fingerprint matches one of the 4 in its set with
 *                probability at most 4/65536, at its create and at its
 *                unlink: F has a Poisson law of mean u = @names / 8192,
 *                bounded here by 2u + 6 (exceeded with probability below
 *                1e-5 for u <= 3); each keeps at most 4 (the name, and 3
 *                unlinks of the comeback count it raised).
 *
 * So 28 + 4 x @dirs + @names / 1024: 41 for 10,000 names in one
 * directory, where the runs of series v4 left at most 11.  On kernels that
 * keep every negative (stock ext2/ext4) or none (tmpfs) only the first
 * term applies; the bound holds for them too.
 */
static inline long long ndt_slack(long long names, long long dirs)
{
	return 28 + 4 * dirs + names / 1024;
}

/*
 * The command line of every guest test: PROGRAM MOUNTPOINT [COUNT], where
 * COUNT (named @count_name in the usage line) overrides *@count; a test
 * without a count passes NULL.  Returns MOUNTPOINT; exits 2 on bad usage.
 */
static inline const char *test_args(int argc, char **argv,
				    const char *count_name, int *count)
{
	if (argc < 2 || argc > (count ? 3 : 2)) {
		fprintf(stderr, "usage: %s MOUNTPOINT%s%s%s\n", argv[0],
			count ? " [" : "", count ? count_name : "",
			count ? "]" : "");
		exit(2);
	}
	if (argc > 2)
		*count = atoi(argv[2]);
	return argv[1];
}

/* DIR/PREFIXi into @path[1024]. */
static inline char *numbered(char *path, const char *dir, const char *prefix, int i)
{
	if (snprintf(path, 1024, "%s/%s%d", dir, prefix, i) >= 1024)
		tap_bail(0, "path too long: %s/%s%d", dir, prefix, i);
	return path;
}

/*
 * Look up @count names DIR/PREFIX0, DIR/PREFIX1, ... that must not exist.
 * Returns how much nr_negative grew; clears *ok if a name exists or its
 * lookup fails with anything but ENOENT.
 */
static inline long long lookup_misses(const char *dir, const char *prefix,
				      int count, int *ok)
{
	long long before = nr_negative();
	char path[1024];
	struct stat st;
	int i;

	for (i = 0; i < count; i++)
		if (!lstat(numbered(path, dir, prefix, i), &st) || errno != ENOENT)
			*ok = 0;
	return nr_negative() - before;
}

/* lookup_misses() where a name that exists ends the test. */
static inline long long must_miss(const char *dir, const char *prefix, int count)
{
	int ok = 1;
	long long grown = lookup_misses(dir, prefix, count, &ok);

	if (!ok)
		tap_bail(0, "a name %s/%s... exists or its lookup failed", dir, prefix);
	return grown;
}

/*
 * Create @count new files DIR/PREFIX0, ... and unlink them all.  Returns
 * how much nr_negative grew across the unlinks.
 */
static inline long long create_unlink(const char *dir, const char *prefix, int count)
{
	char path[1024];
	long long before;
	int i, fd;

	for (i = 0; i < count; i++) {
		fd = open(numbered(path, dir, prefix, i), O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0)
			tap_bail(errno, "create %s", path);
		close(fd);
	}
	before = nr_negative();
	for (i = 0; i < count; i++)
		if (unlink(numbered(path, dir, prefix, i)))
			tap_bail(errno, "unlink %s", path);
	return nr_negative() - before;
}

/* Type and options of the filesystem mounted exactly at @dir. */
static inline int mount_info(const char *dir, char *type, size_t typelen,
			     char *opts, size_t optslen)
{
	char line[4096], mnt[1024], t[64], o[2048];
	FILE *f = fopen("/proc/self/mounts", "r");
	int found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %1023s %63s %2047s", mnt, t, o) != 3)
			continue;
		if (strcmp(mnt, dir))
			continue;
		/* the last match is the one on top */
		snprintf(type, typelen, "%s", t);
		snprintf(opts, optslen, "%s", o);
		found = 1;
	}
	fclose(f);
	return found;
}

/* Which unused negative dentries the filesystem keeps. */
enum policy { POLICY_ALL, POLICY_LOOKUP, POLICY_NONE, POLICY_UNKNOWN };

static const char *const policy_names[] = { "all", "lookup", "none", "?" };

static inline enum policy policy_named(const char *s, size_t len)
{
	int i;

	for (i = POLICY_ALL; i < POLICY_UNKNOWN; i++)
		if (strlen(policy_names[i]) == len && !strncmp(s, policy_names[i], len))
			return i;
	return POLICY_UNKNOWN;
}

/*
 * The value of negdentry= in the comma-separated options @opts, or
 * POLICY_UNKNOWN if there is none; *@found tells whether there was one.
 */
static inline enum policy policy_in(const char *opts, int *found)
{
	const char *p = opts;

	*found = 0;
	while ((p = strstr(p, "negdentry="))) {
		if (p == opts || p[-1] == ',') {
			p += strlen("negdentry=");
			*found = 1;
			return policy_named(p, strcspn(p, ","));
		}
		p++;
	}
	return POLICY_UNKNOWN;
}

/*
 * What the kernel under test must do: declared by the harness in the
 * environment (scripts/check.sh sets NDT_EXPECT from the kernel it boots),
 * never read back from that kernel.
 *
 *   stock   no negdentry= option, which mount refuses; ext2/ext3/ext4
 *           keep every negative dentry ("all"), tmpfs keeps none ("none")
 *   series  negdentry=all|lookup|none on ext2/ext3/ext4 and tmpfs, default
 *           lookup on ext2/ext3/ext4 and none on tmpfs, as the series'
 *           documentation promises
 */
enum kernel_kind { KERNEL_STOCK, KERNEL_SERIES };

static inline enum kernel_kind expected_kernel(void)
{
	const char *e = getenv("NDT_EXPECT");

	if (e && !strcmp(e, "stock"))
		return KERNEL_STOCK;
	if (e && !strcmp(e, "series"))
		return KERNEL_SERIES;
	tap_bail(0, "NDT_EXPECT is '%s': the harness must declare 'stock' or 'series'",
		 e ? e : "(unset)");
}

static inline int expect_series(void)
{
	return expected_kernel() == KERNEL_SERIES;
}

static inline int is_tmpfs(const char *mnt)
{
	char type[64], opts[2048];

	return mount_info(mnt, type, sizeof(type), opts, sizeof(opts)) &&
	       !strcmp(type, "tmpfs");
}

/* What the stock kernel does on @mnt: all on ext2/3/4, none on tmpfs. */
static inline enum policy stock_policy(const char *mnt)
{
	return is_tmpfs(mnt) ? POLICY_NONE : POLICY_ALL;
}

/*
 * The series' default on @mnt, as its documentation promises: lookup on
 * ext2/ext3/ext4; none on tmpfs, where cached misses would slow down
 * readdir and rmdir of their directory (lookup is an opt-in there).
 */
static inline enum policy series_default(const char *mnt)
{
	return is_tmpfs(mnt) ? POLICY_NONE : POLICY_LOOKUP;
}

/*
 * The stock-vs-patched rule of a default-policy count (scripts/summary.py),
 * from what stock promises (@stock) and what the series' default promises
 * (@series): "same" where both promise the same count, "max:@max" (a share
 * of stock's count) where the series promises none, else "delta:D" with D
 * the difference.  Writes " expect=RULE" into @buf and returns it.
 */
static inline const char *cross_rule(char *buf, size_t len, long long stock,
				     long long series, const char *max)
{
	if (stock == series)
		snprintf(buf, len, " expect=same");
	else if (series == 0)
		snprintf(buf, len, " expect=max:%s", max);
	else
		snprintf(buf, len, " expect=delta:%lld", series - stock);
	return buf;
}

/*
 * The policy @mnt must be under: stock's behaviour on a stock kernel; on a
 * series kernel, negdentry= of the options the harness mounted it with
 * (NDT_MOUNT_OPTS, the variant's MOUNT_OPTS) or else the series' default.
 */
static inline enum policy expected_policy(const char *mnt)
{
	const char *opts = getenv("NDT_MOUNT_OPTS");
	enum policy p;
	int found;

	if (!expect_series())
		return stock_policy(mnt);
	p = policy_in(opts ? opts : "", &found);
	if (found && p == POLICY_UNKNOWN)
		tap_bail(0, "NDT_MOUNT_OPTS '%s': unknown negdentry= value", opts);
	return found ? p : series_default(mnt);
}

/*
 * Whether /proc/mounts shows for @mnt what the declared kernel must show
 * under policy @p: no negdentry= on stock; on the series negdentry=@p,
 * or nothing for the filesystem's default (series_default()), as for the
 * filesystems' other options.  Describes what it saw in @seen.
 */
static inline int shows_policy(const char *mnt, enum policy p, char *seen, size_t len)
{
	char type[64], opts[2048];
	enum policy shown;
	int found;

	if (!mount_info(mnt, type, sizeof(type), opts, sizeof(opts)))
		tap_bail(0, "%s is not a mount point", mnt);
	shown = policy_in(opts, &found);
	snprintf(seen, len, "%s%s", found ? "negdentry=" : "no negdentry=",
		 found ? policy_names[shown] : "");
	if (!expect_series() || p == series_default(mnt))
		return !found;
	return found && shown == p;
}

/*
 * Whether the variant declares @feature on its FEATURES= line
 * (fs-images/VARIANT.conf, exported to the tests as NDT_FEATURES).  The
 * mount must agree: @present says whether it has the feature, and a
 * declared feature that is missing, or a present one that is not
 * declared, ends the test.  Returns whether the cases needing it run.
 */
static inline int feature(const char *name, int present)
{
	const char *f = getenv("NDT_FEATURES");
	size_t n = strlen(name);
	int declared = 0;

	while (f && *f) {
		f += strspn(f, " ");
		if (!strncmp(f, name, n) && (f[n] == ' ' || f[n] == '\0'))
			declared = 1;
		f += strcspn(f, " ");
	}
	if (declared && !present)
		tap_bail(0, "the variant declares FEATURES=%s, but the mount does not have it", name);
	if (!declared && present)
		tap_bail(0, "the mount has %s, which the variant does not declare in FEATURES=", name);
	return declared;
}

/* The SKIP reason of a case that needs @feature on a variant without it. */
#define NO_FEATURE(feature) "the variant does not declare FEATURES=" feature

/* Remount @dir with negdentry=@policy; returns 0 or an errno. */
static inline int set_policy(const char *dir, enum policy policy)
{
	char data[64];

	snprintf(data, sizeof(data), "negdentry=%s", policy_names[policy]);
	return mount(NULL, dir, NULL, MS_REMOUNT, data) ? errno : 0;
}

/*
 * The rounds of a test: @round under the policy the mount must be in (tag
 * "default"), then under each negdentry= value.  Each round is preceded by
 * a check that /proc/mounts shows what the declared kernel must show.  On
 * a stock kernel the values are not rounds but checks that mount(2)
 * refuses each with EINVAL.  The mount is left under the policy it had.
 */
static inline void policy_rounds(const char *mnt,
				 void (*round)(enum policy p, const char *tag))
{
	static const enum policy each[] = { POLICY_ALL, POLICY_LOOKUP, POLICY_NONE };
	enum policy orig = expected_policy(mnt);
	char seen[64];
	int i, err;

	tap_diag("%s: expected kernel %s, negdentry=%s", mnt,
		 expect_series() ? "series" : "stock", policy_names[orig]);
	tap_ok(shows_policy(mnt, orig, seen, sizeof(seen)),
	       "default: /proc/mounts shows %s (%s kernel, negdentry=%s)", seen,
	       expect_series() ? "series" : "stock", policy_names[orig]);
	round(orig, "default");
	for (i = 0; i < 3; i++) {
		const char *p = policy_names[each[i]];

		err = set_policy(mnt, each[i]);
		if (!expect_series()) {
			tap_ok(err == EINVAL, "%s: the stock kernel refuses negdentry=%s (%s)",
			       p, p, err ? strerror(err) : "accepted");
			continue;
		}
		if (err)
			tap_bail(err, "remount %s negdentry=%s", mnt, p);
		tap_ok(shows_policy(mnt, each[i], seen, sizeof(seen)),
		       "%s: /proc/mounts shows %s after the remount", p, seen);
		round(each[i], p);
	}
	if (expect_series() && (err = set_policy(mnt, orig)))
		tap_bail(err, "remount %s negdentry=%s", mnt, policy_names[orig]);
}

#endif
