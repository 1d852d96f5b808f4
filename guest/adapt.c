// SPDX-License-Identifier: GPL-2.0
/*
 * adapt: unlink negatives under the default policy when names come back.
 *
 *   adapt MOUNTPOINT [M]
 *
 * Under negdentry=lookup, ext2 and ext4 free the negative dentries that
 * unlink leaves, except for a name removed again while the filesystem
 * still remembers its previous removal (lock files, filesets): its
 * negative stays cached, as on the stock kernel.  The decision is per
 * name, so names that come back do not make the filesystem keep new
 * ones.  Three phases in a new directory, each measured with nr_negative
 * around its unlinks:
 *
 *   spool  M new names created, then unlinked
 *   lock   ROUNDS rounds of creating the same K names and unlinking them;
 *          the last round's unlinks are measured
 *   spool  M new names again: they must still be freed
 *
 * Expected, from the kernel the harness declares (NDT_EXPECT, see ndt.h):
 *
 *   stock ext2/ext4 (keeps all)       M, K, M
 *   series ext2/ext4, lookup          0, K, 0
 *   stock or series tmpfs             0, 0, 0   (tmpfs does not adapt)
 *
 * The series runs under negdentry=lookup whatever the mount says.  Counts
 * are global: each spool is allowed 2 + M/100 of unrelated activity, the
 * K lock names 2.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ndt.h"

#define K	20
#define ROUNDS	6

static int m = 1000;

static int near(long long got, long long want, long long tol)
{
	return llabs(got - want) <= tol;
}

int main(int argc, char **argv)
{
	char dir[512], seen[64];
	long long spool, lock = 0, spool2, want_spool, want_lock;
	long long spool_tol;
	enum policy policy, found;
	int r, adapts, tmpfs;
	const char *mnt;

	mnt = test_args(argc, argv, "M", &m);
	spool_tol = 2 + m / 100;

	tap_begin();
	found = policy = expected_policy(mnt);
	tap_ok(shows_policy(mnt, policy, seen, sizeof(seen)),
	       "/proc/mounts shows %s (%s kernel, negdentry=%s)", seen,
	       expect_series() ? "series" : "stock", policy_names[policy]);
	if (expect_series() && policy != POLICY_LOOKUP) {
		int err = set_policy(mnt, POLICY_LOOKUP);

		if (err)
			tap_bail(err, "remount %s with negdentry=lookup", mnt);
		policy = POLICY_LOOKUP;
	}
	tmpfs = is_tmpfs(mnt);
	adapts = policy == POLICY_LOOKUP && !tmpfs;
	tap_diag("%s: %s, %s kernel, negdentry=%s", mnt, tmpfs ? "tmpfs" : "ext2/3/4",
		 expect_series() ? "series" : "stock", policy_names[policy]);

	snprintf(dir, sizeof(dir), "%s/adapt", mnt);
	if (mkdir(dir, 0755))
		tap_bail(errno, "mkdir %s", dir);
	spool = create_unlink(dir, "spool", m);
	for (r = 0; r < ROUNDS; r++)
		lock = create_unlink(dir, "app.lock", K);
	spool2 = create_unlink(dir, "spool-again", m);

	want_spool = policy == POLICY_ALL ? m : 0;
	want_lock = policy == POLICY_ALL || adapts ? K : 0;
	printf("# metric adapt_spool %lld%s\n", spool, tmpfs ? "" : " expect=max:0.01");
	printf("# metric adapt_lock %lld%s\n", lock, tmpfs ? "" : " expect=same");
	printf("# metric adapt_spool_again %lld%s\n", spool2, tmpfs ? "" : " expect=max:0.01");
	tap_ok(near(spool, want_spool, spool_tol),
	       "%d new names created and unlinked leave %lld negative dentries (want %lld)",
	       m, spool, want_spool);
	tap_ok(near(lock, want_lock, 2),
	       "the same %d names created and unlinked %d times: the last unlinks leave %lld (want %lld: %s)",
	       K, ROUNDS, lock, want_lock,
	       adapts ? "the names come back, so unlink keeps them" :
	       policy == POLICY_ALL ? "all are kept" : "none are kept");
	tap_ok(near(spool2, want_spool, spool_tol),
	       "then %d new names created and unlinked leave %lld (want %lld%s)",
	       m, spool2, want_spool,
	       adapts ? ": misses of new names end the keeping" : "");
	if (found != policy && (r = set_policy(mnt, found)))
		tap_bail(r, "remount %s with negdentry=%s", mnt, policy_names[found]);
	return tap_end();
}
