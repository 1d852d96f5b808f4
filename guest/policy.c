// SPDX-License-Identifier: GPL-2.0
/*
 * policy: switching negdentry= on a mounted filesystem.
 *
 *   policy MOUNTPOINT [K]
 *
 * With K negative dentries cached, remount to another value.  A remount
 * through mount(2) frees every unused dentry of the superblock
 * (reconfigure_super() calls shrink_dcache_sb() in 6.1, stock or
 * patched), so the cached negatives go at the remount whatever the old
 * and new values, and the new policy governs every dentry made after it:
 *
 *   all -> lookup  remount -K; then misses of the unlinked names are
 *                  plain misses, cached (+K); again: 0; unlinks: 0
 *   lookup -> none remount -K; misses cache nothing (0); unlinks: 0
 *   none -> all    remount 0 (nothing cached); misses +K; unlinks +K
 *
 * /proc/mounts shows each value and the other options stay as they were.
 * An invalid value (negdentry=bogus, negdentry=) is refused with EINVAL,
 * the kernel log names the option, and the mount keeps its options and
 * policy; this part runs on the stock kernel too, which refuses the
 * unknown option (the kernel log check is the series' promise only: stock
 * ext2 refuses unknown options without a message).  On a stock kernel
 * (NDT_EXPECT, see ndt.h) switching is replaced by checks that every
 * value is refused.  Counts are global: each is allowed K/40 of noise.
 */
#include "sem.h"

static int K = 300;
static const char *mnt;

static long long tol(void)
{
	return K / 40 > 2 ? K / 40 : 2;
}

static int near(long long got, long long want)
{
	return llabs(got - want) <= tol();
}

/* The mount options without negdentry=..., to compare across remounts. */
static void other_opts(char *out, size_t len)
{
	char opts[2048], *tok, *save = NULL;

	mount_opts(mnt, opts, sizeof(opts));
	out[0] = '\0';
	for (tok = strtok_r(opts, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strncmp(tok, "negdentry=", 10))
			continue;
		if (strlen(out) + strlen(tok) + 2 < len) {
			if (out[0])
				strcat(out, ",");
			strcat(out, tok);
		}
	}
}

static void check(const char *what, long long got, long long want)
{
	printf("# metric %s %lld\n", what, got);
	tap_ok(near(got, want), "%s: %lld negative dentries (want %lld)", what, got, want);
}

/* Remount to @p; the check that /proc/mounts shows it and nothing else moved. */
static void switch_to(enum policy p, const char *others, long long *delta)
{
	char now[2048], seen[64];
	long long before = nr_negative();
	int r = set_policy(mnt, p), shown;

	*delta = nr_negative() - before;
	other_opts(now, sizeof(now));
	shown = shows_policy(mnt, p, seen, sizeof(seen));
	tap_ok(!r && shown && !strcmp(now, others),
	       "remount negdentry=%s: %s, /proc/mounts shows %s, other options kept",
	       policy_names[p], r ? strerror(r) : "ok", seen);
}

static void switching(void)
{
	char dir[512], others[2048], seen[64];
	enum policy orig = expected_policy(mnt);
	long long d;
	int i, r;

	tap_ok(shows_policy(mnt, orig, seen, sizeof(seen)),
	       "the mount shows %s (%s kernel, negdentry=%s)", seen,
	       expect_series() ? "series" : "stock", policy_names[orig]);
	if (!expect_series()) {
		for (i = POLICY_ALL; i < POLICY_UNKNOWN; i++) {
			r = set_policy(mnt, i);
			tap_ok(r == EINVAL, "the stock kernel refuses negdentry=%s (%s)",
			       policy_names[i], r ? strerror(r) : "accepted");
		}
		return;
	}
	other_opts(others, sizeof(others));
	snprintf(dir, sizeof(dir), "%s/policy", mnt);
	if (mkdir(dir, 0755))
		tap_bail(errno, "mkdir %s", dir);

	switch_to(POLICY_ALL, others, &d);
	check("all_unlink", create_unlink(dir, "u", K), K);

	switch_to(POLICY_LOOKUP, others, &d);
	check("all_to_lookup_remount", d, -K);
	check("all_to_lookup_first_lookups", must_miss(dir, "u", K), K);
	check("all_to_lookup_second_lookups", must_miss(dir, "u", K), 0);
	check("lookup_unlink", create_unlink(dir, "v", K), 0);

	switch_to(POLICY_NONE, others, &d);
	check("lookup_to_none_remount", d, -K);
	check("lookup_to_none_lookups", must_miss(dir, "u", K), 0);
	check("none_unlink", create_unlink(dir, "w", K), 0);

	switch_to(POLICY_ALL, others, &d);
	check("none_to_all_remount", d, 0);
	check("none_to_all_lookups", must_miss(dir, "u", K), K);
	check("none_to_all_unlink", create_unlink(dir, "x", K), K);

	switch_to(orig, others, &d);
	if (rm_tree(dir))
		tap_bail(errno, "rm -r %s", dir);
}

/* New kernel log records since @fd was opened contain @word. */
static int kmsg_has(int fd, const char *word, char *line, size_t len)
{
	char rec[8192];
	ssize_t n;
	int found = 0;

	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		if (n <= 0)
			continue;
		rec[n] = '\0';
		if (!found && strstr(rec, word)) {
			char *msg = strchr(rec, ';');

			if (snprintf(line, len, "%s", msg ? msg + 1 : rec) >= (int)len)
				line[len - 1] = '\0';
			line[strcspn(line, "\n")] = '\0';
			found = 1;
		}
	}
	return found;
}

static void invalid(const char *value)
{
	char before[2048], after[2048], data[64], line[512] = "";
	char dir[512];
	int fd, r, err, seen;
	long long unl;
	enum policy p = expected_policy(mnt);

	mount_opts(mnt, before, sizeof(before));
	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (fd < 0 || lseek(fd, 0, SEEK_END) < 0)
		tap_bail(errno, "/dev/kmsg");
	snprintf(data, sizeof(data), "negdentry=%s", value);
	r = mount(NULL, mnt, NULL, MS_REMOUNT, data);
	err = errno;
	seen = kmsg_has(fd, "negdentry", line, sizeof(line));
	close(fd);
	mount_opts(mnt, after, sizeof(after));
	tap_ok(r && err == EINVAL, "remount -o %s is refused with EINVAL (got %s)", data,
	       r ? strerror(err) : "success");
	if (expect_series())
		tap_ok(seen, "remount -o %s: the kernel log names the option (%s)", data,
		       seen ? line : "no message with \"negdentry\"");
	tap_ok(!strcmp(before, after), "remount -o %s: the mount options are unchanged", data);
	if (strcmp(before, after))
		tap_diag("before: %s; after: %s", before, after);
	/* and the policy in force still acts */
	snprintf(dir, sizeof(dir), "%s/policy-invalid", mnt);
	if (mkdir(dir, 0755))
		tap_bail(errno, "mkdir %s", dir);
	unl = create_unlink(dir, "i", K);
	tap_ok(near(unl, p == POLICY_ALL ? K : 0),
	       "after the refused remount, unlinks still follow negdentry=%s (%lld)",
	       policy_names[p], unl);
	rm_tree(dir);
}

int main(int argc, char **argv)
{
	mnt = test_args(argc, argv, "K", &K);
	tap_begin();
	switching();
	invalid("bogus");
	invalid("");
	return tap_end();
}
