// SPDX-License-Identifier: GPL-2.0
/*
 * negdent: how many negative dentries unlink and lookup misses leave.
 *
 *   negdent MOUNTPOINT [N]
 *
 * Creates and unlinks N files, then looks up N names that never existed,
 * then looks them up again, reading nr_negative from
 * /proc/sys/fs/dentry-state around each step.  It does so under the policy
 * the harness declares for the mount (NDT_EXPECT, see ndt.h) and then
 * under each negdentry= value (on a stock kernel: each value refused).
 * The expectation comes from the policy's definition:
 *
 *   all     unlink leaves N, misses leave N    (stock ext2/ext4)
 *   lookup  unlink leaves 0, misses leave N    (the series' ext2/ext4
 *                                               default; tmpfs opt-in)
 *   none    unlink leaves 0, misses leave 0    (stock tmpfs, the series'
 *                                               tmpfs default)
 *
 * and repeated misses never add more.  Counts are global: each is allowed
 * ndt_slack(N, 1) (ndt.h: the guest's own activity and the per-name
 * table's false positives).  The default round's metrics carry
 * the stock-vs-patched rule that follows from stock's policy and the
 * series' default: unlink leaves at most 1% of what stock leaves (on
 * tmpfs both leave 0); lookup misses leave the same on every filesystem
 * (ext2/ext4 cache them on both kernels, tmpfs on neither).  On the tmpfs
 * variant, devtmpfs (/dev) must cache no misses on any kernel.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ndt.h"

static int n = 10000;

static int near(long long got, long long want)
{
	return llabs(got - want) <= ndt_slack(n, 1);
}

static const char *mnt;

/* One round under @policy, with every number as a metric for the host. */
static void round_under(enum policy policy, const char *tag)
{
	int dflt = !strcmp(tag, "default");
	const char *p = policy_names[policy];
	char dir[512], miss_rule[32] = "";
	long long unl, miss, again, want_unl, want_miss;

	snprintf(dir, sizeof(dir), "%s/negdent-%s", mnt, tag);
	if (mkdir(dir, 0755))
		tap_bail(errno, "mkdir %s", dir);
	unl = create_unlink(dir, "f", n);
	miss = must_miss(dir, "missing", n);
	again = must_miss(dir, "missing", n);

	want_unl = policy == POLICY_ALL ? n : 0;
	want_miss = policy == POLICY_NONE ? 0 : n;

	/* what the series' default caches against what stock does */
	if (dflt)
		cross_rule(miss_rule, sizeof(miss_rule),
			   stock_policy(mnt) == POLICY_NONE ? 0 : n,
			   series_default(mnt) == POLICY_NONE ? 0 : n, "0.01");
	printf("# metric %s_unlink %lld%s\n", tag, unl, dflt ? " expect=max:0.01" : "");
	printf("# metric %s_miss %lld%s\n", tag, miss, miss_rule);
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

/*
 * devtmpfs is shmem underneath, mounted without SB_KERNMOUNT, but keeps
 * tmpfs's old dentry operations on every kernel (the series leaves /dev
 * alone, whatever negdentry= says): misses in /dev are not cached and
 * /proc/mounts shows no negdentry= for it.  Checked with the tmpfs
 * variant, the one whose driver it shares.
 */
static void devtmpfs_misses(void)
{
	char type[64], opts[2048];
	long long miss;

	if (!mount_info("/dev", type, sizeof(type), opts, sizeof(opts)) ||
	    strcmp(type, "devtmpfs"))
		tap_bail(0, "/dev is not devtmpfs (scripts/guest-init.sh mounts it)");
	miss = must_miss("/dev", "ndt-missing-", n / 10);
	printf("# metric devtmpfs_miss %lld expect=same\n", miss);
	tap_ok(near(miss, 0),
	       "devtmpfs (/dev): %d lookup misses leave %lld negative dentries (want 0 on every kernel)",
	       n / 10, miss);
	tap_ok(!strstr(opts, "negdentry="), "devtmpfs: /proc/mounts shows no negdentry= (%s)", opts);
}

int main(int argc, char **argv)
{
	mnt = test_args(argc, argv, "N", &n);
	tap_begin();
	policy_rounds(mnt, round_under);
	if (is_tmpfs(mnt))
		devtmpfs_misses();
	return tap_end();
}
