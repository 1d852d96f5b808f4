// SPDX-License-Identifier: GPL-2.0
/*
 * adapt: unlink negatives under the default policy when names come back.
 *
 *   adapt MOUNTPOINT [M]
 *
 * Under negdentry=lookup, ext2 and ext4 free the negative dentries that
 * unlink leaves, except where names come back: a name removed again while
 * the filesystem still remembers its previous removal (lock files), or a
 * directory where most creates re-make a removed name (a fileset, however
 * large).  Names that come back do not make the filesystem keep new ones.
 * Six phases, each in its own new directory and measured with
 * nr_negative around its unlinks:
 *
 *   spool    M new names created, then unlinked
 *   lock     ROUNDS rounds of creating the same K names and unlinking them;
 *            the last round's unlinks are measured
 *   spool    M new names again: they must still be freed
 *   fileset  filebench webproxy's rotation: NF names, NA of them absent;
 *            each step unlinks the next present name and creates the next
 *            absent one, so a name comes back NA steps after its removal
 *            and is removed again NF steps later, further apart than the
 *            per-name record reaches (~4096 removals); after FROUNDS
 *            rounds, the NA absent names' negatives are counted
 *   busy     a lock file in a directory of its own, created and unlinked
 *            once after every S always-new names of a spool in another
 *            directory, BUSY times; the lock's last unlink and the last
 *            spool are measured
 *   remade   REMADE rounds of: make directory d, M names created and
 *            unlinked there, remove d.  Each d is new, but d's negative
 *            dentry is kept and the next mkdir makes d in it, so the dcache
 *            hashes each round's names as it hashed the last round's: they
 *            are spools all the same, and the most any round but the first
 *            leaves is measured (v4 kept them: its records used the
 *            dcache's hash alone)
 *
 * Expected, from the kernel the harness declares (NDT_EXPECT, see ndt.h):
 *
 *                              spool lock spool fileset busy: lock spool remade
 *   stock ext2/ext4 (keeps all) M     K    M     NA            1    S     M
 *   series ext2/ext4, lookup    0     K    0     NA            1    0     0
 *   stock or series tmpfs       0     0    0     0             0    0     0
 *
 * The series runs under negdentry=lookup whatever the mount says.  Counts
 * are global: each spool is allowed ndt_slack(M or S, 1) (ndt.h: the
 * guest's own activity, the directory's first unlink and comeback count,
 * the per-name table's false positives), the K lock names 2, the fileset
 * 2 + NA/100, the lone lock 0, each remade spool ndt_slack(M, 1).
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ndt.h"

#define K	20
#define ROUNDS	6
#define NF	6000
#define NA	1200
#define FROUNDS	2
#define S	10000
#define BUSY	3
#define REMADE	3

static int m = 1000;

static int near(long long got, long long want, long long tol)
{
	return llabs(got - want) <= tol;
}

static void create_file(const char *path)
{
	int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);

	if (fd < 0)
		tap_bail(errno, "create %s", path);
	close(fd);
}

/*
 * webproxy's rotation in DIR: NF names, the first NF - NA present; step s
 * unlinks name s and creates name s + NF - NA (mod NF).  Returns how many
 * more negative dentries there are after FROUNDS rounds than before.
 */
static long long fileset(const char *dir)
{
	char path[1024];
	long long before, s;
	int i;

	for (i = 0; i < NF - NA; i++)
		create_file(numbered(path, dir, "f", i));
	before = nr_negative();
	for (s = 0; s < (long long)FROUNDS * NF; s++) {
		if (unlink(numbered(path, dir, "f", s % NF)))
			tap_bail(errno, "unlink %s", path);
		create_file(numbered(path, dir, "f", (s + NF - NA) % NF));
	}
	return nr_negative() - before;
}

/*
 * BUSY cycles of S always-new names created and unlinked one by one in
 * SPOOLDIR, then LOCK created and unlinked.  Returns in *lock how many
 * negative dentries the lock's last unlink left, and in *spool how many
 * the last cycle's spool left.
 */
static void busy(const char *spooldir, const char *lock, long long *lockneg,
		 long long *spoolneg)
{
	char path[1024];
	long long before = 0;
	int c, i;

	for (c = 0; c < BUSY; c++) {
		before = nr_negative();
		for (i = 0; i < S; i++) {
			create_file(numbered(path, spooldir, "s", c * S + i));
			if (unlink(path))
				tap_bail(errno, "unlink %s", path);
		}
		*spoolneg = nr_negative() - before;
		create_file(lock);
		before = nr_negative();
		if (unlink(lock))
			tap_bail(errno, "unlink %s", lock);
		*lockneg = nr_negative() - before;
	}
}

/*
 * REMADE rounds of DIR/d made, M names created and unlinked in it, and
 * removed.  Returns the most negative dentries the unlinks of one round
 * after the first left.
 */
static long long remade(const char *dir)
{
	char d[1024];
	long long most = 0, got;
	int r;

	snprintf(d, sizeof(d), "%s/d", dir);
	for (r = 0; r < REMADE; r++) {
		if (mkdir(d, 0755))
			tap_bail(errno, "mkdir %s", d);
		got = create_unlink(d, "s", m);
		if (r > 0 && got > most)
			most = got;
		if (rmdir(d))
			tap_bail(errno, "rmdir %s", d);
	}
	return most;
}

int main(int argc, char **argv)
{
	char dir[512], seen[64], spooldir[600], lockdir[600], lockname[700];
	long long spool, lock = 0, spool2, want_spool, want_lock;
	long long files, want_files, busylock = 0, busyspool = 0, again;
	long long spool_tol;
	enum policy policy, found;
	int r, adapts, tmpfs;
	const char *mnt;

	mnt = test_args(argc, argv, "M", &m);
	spool_tol = ndt_slack(m, 1);

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
	snprintf(spooldir, sizeof(spooldir), "%s/fileset", dir);
	if (mkdir(spooldir, 0755))
		tap_bail(errno, "mkdir %s", spooldir);
	files = fileset(spooldir);
	snprintf(spooldir, sizeof(spooldir), "%s/spool", dir);
	snprintf(lockdir, sizeof(lockdir), "%s/lock", dir);
	snprintf(lockname, sizeof(lockname), "%s/app.lock", lockdir);
	if (mkdir(spooldir, 0755) || mkdir(lockdir, 0755))
		tap_bail(errno, "mkdir %s or %s", spooldir, lockdir);
	busy(spooldir, lockname, &busylock, &busyspool);
	snprintf(spooldir, sizeof(spooldir), "%s/remade", dir);
	if (mkdir(spooldir, 0755))
		tap_bail(errno, "mkdir %s", spooldir);
	again = remade(spooldir);

	want_spool = policy == POLICY_ALL ? m : 0;
	want_lock = policy == POLICY_ALL || adapts ? K : 0;
	want_files = policy == POLICY_ALL || adapts ? NA : 0;
	printf("# metric adapt_spool %lld%s\n", spool, tmpfs ? "" : " expect=max:0.01");
	printf("# metric adapt_lock %lld%s\n", lock, tmpfs ? "" : " expect=same");
	printf("# metric adapt_spool_again %lld%s\n", spool2, tmpfs ? "" : " expect=max:0.01");
	printf("# metric adapt_fileset %lld%s\n", files, tmpfs ? "" : " expect=same");
	printf("# metric adapt_busy_lock %lld%s\n", busylock, tmpfs ? "" : " expect=equal");
	printf("# metric adapt_busy_spool %lld%s\n", busyspool, tmpfs ? "" : " expect=max:0.01");
	printf("# metric adapt_remade %lld%s\n", again, tmpfs ? "" : " expect=max:0.01");
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
	tap_ok(near(files, want_files, 2 + NA / 100),
	       "a fileset of %d names in one directory, %d absent, in rotation (%d rounds): the absent names have %lld negative dentries (want %lld%s)",
	       NF, NA, FROUNDS, files, want_files,
	       adapts ? ": the directory's names come back" : "");
	tap_ok(busylock == (policy == POLICY_ALL || adapts),
	       "a lock file in its own directory, unlinked after every %d spool names: its last unlink leaves %lld (want %d)",
	       S, busylock, policy == POLICY_ALL || adapts);
	tap_ok(near(busyspool, policy == POLICY_ALL ? S : 0, ndt_slack(S, 1)),
	       "and the spool's last %d names leave %lld (want %d)",
	       S, busyspool, policy == POLICY_ALL ? S : 0);
	tap_ok(near(again, want_spool, spool_tol),
	       "a directory removed and made again %d times, %d new names created and unlinked in each: rounds 2-%d leave at most %lld (want %lld)",
	       REMADE, m, REMADE, again, want_spool);
	if (found != policy && (r = set_policy(mnt, found)))
		tap_bail(r, "remount %s with negdentry=%s", mnt, policy_names[found]);
	return tap_end();
}
