// SPDX-License-Identifier: GPL-2.0
/*
 * negdent: how many negative dentries unlink and lookup misses leave.
 *
 *   negdent MOUNTPOINT [N]
 *
 * Creates and unlinks N files, then looks up N names that never existed,
 * then looks them up again, reading nr_negative from
 * /proc/sys/fs/dentry-state around each step.  It does so under the policy
 * in force and then, where the kernel has the negdentry= option, under each
 * value of it.  The expectation comes from the policy's definition:
 *
 *   all     unlink leaves N, misses leave N    (stock ext2/ext4)
 *   lookup  unlink leaves 0, misses leave N    (the series' default)
 *   none    unlink leaves 0, misses leave 0    (stock tmpfs)
 *
 * and repeated misses never add more.  Counts are global, so each is
 * allowed N/100 of unrelated activity.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ndt.h"

static int n = 10000;

static int near(long long got, long long want)
{
	return llabs(got - want) <= n / 100;
}

static int is_tmpfs(const char *mnt)
{
	char type[64], opts[2048];

	return mount_info(mnt, type, sizeof(type), opts, sizeof(opts)) &&
	       !strcmp(type, "tmpfs");
}

/*
 * One round under @policy, with every number as a metric for the host.
 * The default round also tells the host what to expect of the patched
 * kernel against the stock one: unlink leaves at most 1% of what stock
 * leaves, and on ext2/ext4 lookup misses leave the same number.
 */
static void round_under(const char *mnt, enum policy policy, const char *tag)
{
	const char *cross = strcmp(tag, "default") ? "" : " expect=max:0.01";
	const char *p = policy_names[policy];
	char dir[512];
	long long unl, miss, again, want_unl, want_miss;

	snprintf(dir, sizeof(dir), "%s/negdent-%s", mnt, tag);
	if (mkdir(dir, 0755))
		tap_bail(errno, "mkdir %s", dir);
	unl = create_unlink(dir, "f", n);
	miss = must_miss(dir, "missing", n);
	again = must_miss(dir, "missing", n);

	want_unl = policy == POLICY_ALL ? n : 0;
	want_miss = policy == POLICY_NONE ? 0 : n;

	printf("# metric %s_unlink %lld%s\n", tag, unl, cross);
	printf("# metric %s_miss %lld%s\n", tag, miss,
	       cross[0] && !is_tmpfs(mnt) ? " expect=same" : "");
	printf("# metric %s_miss_again %lld\n", tag, again);
	tap_ok(near(unl, want_unl),
	       "%s: %d create+unlink leave %lld negative dentries (negdentry=%s: %lld)",
	       tag, n, unl, p, want_unl);
	tap_ok(near(miss, want_miss),
	       "%s: %d lookup misses leave %lld negative dentries (negdentry=%s: %lld)",
	       tag, n, miss, p, want_miss);
	tap_ok(near(again, 0),
	       "%s: the same %d misses again add %lld (want 0)", tag, n, again);
}

int main(int argc, char **argv)
{
	static const enum policy each[] = { POLICY_ALL, POLICY_LOOKUP, POLICY_NONE };
	enum policy policy;
	int has_option, i, err;
	const char *mnt;

	mnt = test_args(argc, argv, "N", &n);

	tap_plan(3 * 4);
	policy = mount_policy(mnt, &has_option);
	if (policy == POLICY_UNKNOWN)
		tap_bail(0, "no known negative dentry policy on %s", mnt);
	tap_diag("%s: negdentry=%s (%s)", mnt, policy_names[policy],
		 has_option ? "mount option" : "stock behaviour");
	round_under(mnt, policy, "default");

	for (i = 0; i < 3; i++) {
		const char *p = policy_names[each[i]];
		char tag[32];

		snprintf(tag, sizeof(tag), "%s", p);
		if (!has_option) {
			int k;

			for (k = 0; k < 3; k++)
				tap_skip("kernel has no negdentry= option",
					 "%s: negdentry=%s", tag, p);
			continue;
		}
		err = set_policy(mnt, each[i]);
		if (err)
			tap_bail(err, "remount %s with negdentry=%s", mnt, p);
		if (mount_policy(mnt, NULL) != each[i])
			tap_bail(0, "/proc/mounts does not show negdentry=%s", p);
		round_under(mnt, each[i], tag);
	}
	/* leave the mount as it was found */
	if (has_option)
		set_policy(mnt, policy);
	return tap_exit();
}
