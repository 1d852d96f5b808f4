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

/*
 * The policy in force on the mount at @dir: the negdentry= option when the
 * kernel shows one, otherwise the stock kernel's behaviour for the type
 * (ext2/ext3/ext4 keep every negative dentry, tmpfs keeps none).
 * *has_option tells whether the kernel knows negdentry= at all.
 */
static inline enum policy mount_policy(const char *dir, int *has_option)
{
	char type[64], opts[2048], *p;
	int i;

	if (!mount_info(dir, type, sizeof(type), opts, sizeof(opts)))
		tap_bail(0, "%s is not a mount point", dir);
	p = strstr(opts, "negdentry=");
	if (has_option)
		*has_option = p != NULL;
	if (p) {
		p += strlen("negdentry=");
		for (i = POLICY_ALL; i < POLICY_UNKNOWN; i++) {
			size_t n = strlen(policy_names[i]);

			if (!strncmp(p, policy_names[i], n) &&
			    (p[n] == ',' || p[n] == '\0'))
				return i;
		}
		return POLICY_UNKNOWN;
	}
	if (!strcmp(type, "tmpfs"))
		return POLICY_NONE;
	if (!strncmp(type, "ext", 3))
		return POLICY_ALL;
	return POLICY_UNKNOWN;
}

/* Remount @dir with negdentry=@policy; returns 0 or an errno. */
static inline int set_policy(const char *dir, enum policy policy)
{
	char data[64];

	snprintf(data, sizeof(data), "negdentry=%s", policy_names[policy]);
	return mount(NULL, dir, NULL, MS_REMOUNT, data) ? errno : 0;
}

#endif
