// SPDX-License-Identifier: GPL-2.0
/*
 * adapt: unlink negatives under the default policy when names come back.
 *
 *   adapt MOUNTPOINT [M]
 *
 * Under negdentry=lookup, ext2 and ext4 free the negative dentries that
 * unlink leaves, except while creates keep missing on names that unlink
 * freed lately (lock files, filesets): then unlink leaves them cached, as
 * the stock kernel does, until misses of other names outweigh those
 * creates again.  Three phases in a new directory, each measured with
 * nr_negative around its unlinks:
 *
 *   spool  M new names created, then unlinked
 *   lock   ROUNDS rounds of creating the same K names and unlinking them;
 *          the last round's unlinks are measured
 *   spool  M new names again: the filesystem must have stopped keeping
 *
 * Expected, from the policy in force (see mount_policy()):
 *
 *   all (stock ext2/ext4)             M, K, M
 *   lookup on ext2/ext4 (the series)  0, K, 0
 *   lookup on tmpfs, none             0, 0, 0   (tmpfs does not adapt)
 *
 * The patched kernel runs under negdentry=lookup whatever the mount says.
 * Counts are global: each is allowed 2 + M/100 of unrelated activity.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ndt.h"

#define K	20
#define ROUNDS	6

static int m = 1000;

static int near(long long got, long long want)
{
	return llabs(got - want) <= 2 + m / 100;
}

int main(int argc, char **argv)
{
	char dir[512], type[64], opts[2048];
	long long spool, lock = 0, spool2, want_spool, want_lock;
	enum policy policy, found;
	int has_option, r, adapts;
	const char *mnt;

	mnt = test_args(argc, argv, "M", &m);

	tap_plan(3);
	found = policy = mount_policy(mnt, &has_option);
	if (policy == POLICY_UNKNOWN)
		tap_bail(0, "no known negative dentry policy on %s", mnt);
	if (has_option && policy != POLICY_LOOKUP) {
		int err = set_policy(mnt, POLICY_LOOKUP);

		if (err)
			tap_bail(err, "remount %s with negdentry=lookup", mnt);
		policy = POLICY_LOOKUP;
	}
	if (!mount_info(mnt, type, sizeof(type), opts, sizeof(opts)))
		tap_bail(0, "%s is not a mount point", mnt);
	adapts = policy == POLICY_LOOKUP && strcmp(type, "tmpfs");
	tap_diag("%s: %s, negdentry=%s (%s)", mnt, type, policy_names[policy],
		 has_option ? "mount option" : "stock behaviour");

	snprintf(dir, sizeof(dir), "%s/adapt", mnt);
	if (mkdir(dir, 0755))
		tap_bail(errno, "mkdir %s", dir);
	spool = create_unlink(dir, "spool", m);
	for (r = 0; r < ROUNDS; r++)
		lock = create_unlink(dir, "app.lock", K);
	spool2 = create_unlink(dir, "spool-again", m);

	want_spool = policy == POLICY_ALL ? m : 0;
	want_lock = policy == POLICY_ALL || adapts ? K : 0;
	printf("# metric adapt_spool %lld%s\n", spool,
	       strcmp(type, "tmpfs") ? " expect=max:0.01" : "");
	printf("# metric adapt_lock %lld%s\n", lock,
	       strcmp(type, "tmpfs") ? " expect=same" : "");
	printf("# metric adapt_spool_again %lld%s\n", spool2,
	       strcmp(type, "tmpfs") ? " expect=max:0.01" : "");
	tap_ok(near(spool, want_spool),
	       "%d new names created and unlinked leave %lld negative dentries (want %lld)",
	       m, spool, want_spool);
	tap_ok(near(lock, want_lock),
	       "the same %d names created and unlinked %d times: the last unlinks leave %lld (want %lld: %s)",
	       K, ROUNDS, lock, want_lock,
	       adapts ? "the names come back, so unlink keeps them" :
	       policy == POLICY_ALL ? "all are kept" : "none are kept");
	tap_ok(near(spool2, want_spool),
	       "then %d new names created and unlinked leave %lld (want %lld%s)",
	       m, spool2, want_spool,
	       adapts ? ": misses of new names end the keeping" : "");
	if (has_option && found != policy)
		set_policy(mnt, found);
	return tap_exit();
}
