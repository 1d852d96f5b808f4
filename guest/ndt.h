/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers for the guest-side tests: dcache counters, the mount a
 * test runs on, and the negdentry= policy in force there.
 */
#ifndef NDT_H
#define NDT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
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
