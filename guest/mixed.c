// SPDX-License-Identifier: GPL-2.0
/*
 * mixed: a spool must leak nothing while a lock file comes back.
 *
 *   mixed MOUNTPOINT [N]
 *
 * Under negdentry=lookup the decision to keep the negative dentry that an
 * unlink leaves is taken per name: a name unlinked again soon after its
 * previous unlink is one that comes back (a lock file) and its negative
 * is kept; a name unlinked for the first time (a spool, a build tree) is
 * freed, whatever other names on the same filesystem do.  Each case runs
 * in new directories and measures nr_negative around its unlinks:
 *
 *   1. the 2002 reproducer: REPRO_ROUNDS rounds of creating N random names
 *      never used before and unlinking them: growth from start to end.  It
 *      runs first, so that the other cases find a filesystem that has seen
 *      unlinks before, not the state right after mount
 *   2. a spool of N new names (each created, then unlinked) interleaved
 *      with cycles of K lock names (create one, unlink it, round robin, so
 *      each comes back after K-1 others), at 1:1, 4:1 and 1:4 spool names
 *      per lock cycle, in different directories and in the same one; the
 *      growth across each spool unlink is summed, and separately across
 *      each lock unlink of the last round (each lock name once)
 *   3. a lock file held open while it is unlinked (open, unlink, close),
 *      then created again, 1:1 with a spool: the spool's unlinks
 *   4. a tree of 5N files in TREE_DIRS directories, then the K lock names
 *      cycled LOCK_ROUNDS times, then the tree removed as rm -rf does: the
 *      negatives each removal leaves (rmdir frees the negatives of the
 *      directory's entries, which stay counted: they were left until then)
 *
 * Expected, from the kernel the harness declares (NDT_EXPECT, see ndt.h):
 *
 *                                spool  lock  tree     reproducer
 *   stock ext2/ext4 (keeps all)  N      K     entries  REPRO_ROUNDS * N
 *   series ext2/ext4, lookup     0      K     0        0
 *   stock or series tmpfs        0      0     0        0
 *
 * The series runs under negdentry=lookup whatever the mount says.  Counts
 * are global: a count of C unlinks in D directories is allowed
 * ndt_slack(C, D) (ndt.h: the guest's own activity, each directory's first
 * unlink and comeback count, the per-name table's false positives), the K
 * lock names 2.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ndt.h"

#define K		20
#define LOCK_ROUNDS	6
#define TREE_DIRS	10
#define REPRO_ROUNDS	10

static int n = 2000;
static const char *mnt;
static int tmpfs;
static int keeps_all;	/* every unlink leaves its negative: stock ext2/3/4 */
static int keeps_lock;	/* the lock names' negatives stay */

/* What @count unlinks of new names must leave. */
static long long want_new(long long count)
{
	return keeps_all ? count : 0;
}

static int near(long long got, long long want, long long tol)
{
	return llabs(got - want) <= tol;
}

/* "# metric NAME VALUE expect=RULE"; tmpfs, which the series does not change there, has no rule. */
static void metric(const char *name, long long value, const char *rule)
{
	printf("# metric %s %lld%s%s\n", name, value,
	       tmpfs ? "" : " expect=", tmpfs ? "" : rule);
	fflush(stdout);
}

/* PARENT/NAME into @path[1024]. */
static char *join(char *path, const char *parent, const char *name)
{
	if (snprintf(path, 1024, "%s/%s", parent, name) >= 1024)
		tap_bail(0, "path too long: %s/%s", parent, name);
	return path;
}

/* PARENT/NAME into @path[1024], created as a directory. */
static char *make_dir(char *path, const char *parent, const char *name)
{
	if (mkdir(join(path, parent, name), 0755))
		tap_bail(errno, "mkdir %s", path);
	return path;
}

/* Create @path, a new file; returns its open descriptor. */
static int create_open(const char *path)
{
	int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);

	if (fd < 0)
		tap_bail(errno, "create %s", path);
	return fd;
}

static void create(const char *path)
{
	close(create_open(path));
}

/* Unlink @path; returns how much nr_negative grew across the unlink. */
static long long unlink_counted(const char *path)
{
	long long before = nr_negative();

	if (unlink(path))
		tap_bail(errno, "unlink %s", path);
	return nr_negative() - before;
}

/* Create @path and unlink it; returns the growth across the unlink. */
static long long cycle(const char *path)
{
	create(path);
	return unlink_counted(path);
}

/* Case 1: @names[n] random names, unique to this run by their @round and index. */
static void random_names(long *names)
{
	int i;

	for (i = 0; i < n; i++)
		names[i] = random();
}

static char *random_name(char *path, const char *dir, int round, long r, int i)
{
	if (snprintf(path, 1024, "%s/%08lx-%d-%d", dir, r, round, i) >= 1024)
		tap_bail(0, "path too long: %s", dir);
	return path;
}

static void repro_round(const char *dir, int round, long *names)
{
	char path[1024];
	int i;

	random_names(names);
	for (i = 0; i < n; i++)
		create(random_name(path, dir, round, names[i], i));
	for (i = 0; i < n; i++)
		if (unlink(random_name(path, dir, round, names[i], i)))
			tap_bail(errno, "unlink %s", path);
}

static void reproducer(void)
{
	long *names = calloc(n, sizeof(*names));
	long long before, left, total = (long long)REPRO_ROUNDS * n;
	char dir[1024];
	int round;

	if (!names)
		tap_bail(errno, "calloc");
	make_dir(dir, mnt, "mixed-repro");
	srandom(getpid());
	before = nr_negative();
	for (round = 0; round < REPRO_ROUNDS; round++)
		repro_round(dir, round, names);
	left = nr_negative() - before;
	free(names);
	metric("mixed_reproducer", left, "max:0.01");
	tap_ok(near(left, want_new(total), ndt_slack(total, 1)),
	       "%d rounds of %d random new names created and unlinked leave %lld (want %lld)",
	       REPRO_ROUNDS, n, left, want_new(total));
}

/* Case 2: a spool and cycled lock names, and what each one's unlinks left. */
struct mix {
	char spool_dir[1024], lock_dir[1024];
	int spooled;		/* spool names used so far */
	int cycles, total;	/* lock cycles done, and to do */
	long long spool, lock;	/* growth across the spool's unlinks, the last lock round's */
};

static void spool_names(struct mix *m, int count)
{
	char path[1024];
	int i;

	for (i = 0; i < count; i++)
		m->spool += cycle(numbered(path, m->spool_dir, "spool", m->spooled++));
}

static void lock_cycles(struct mix *m, int count)
{
	char path[1024];
	long long grown;
	int i;

	for (i = 0; i < count; i++, m->cycles++) {
		grown = cycle(numbered(path, m->lock_dir, "app.lock", m->cycles % K));
		if (m->cycles >= m->total - K)
			m->lock += grown;
	}
}

struct ratio {
	int spool, lock;	/* spool names per @lock lock cycles */
	const char *tag;
};

static void report_mix(const char *tag, const char *layout, const struct mix *m)
{
	char name[128];

	snprintf(name, sizeof(name), "mixed_%s_%s_spool", tag, layout);
	metric(name, m->spool, "max:0.01");
	snprintf(name, sizeof(name), "mixed_%s_%s_lock", tag, layout);
	metric(name, m->lock, "same");
	tap_ok(near(m->spool, want_new(n), ndt_slack(n, 2)),
	       "%s, %s: %d spool names unlinked among %d lock cycles leave %lld (want %lld)",
	       tag, layout, n, m->total, m->spool, want_new(n));
	tap_ok(near(m->lock, keeps_lock ? K : 0, 2),
	       "%s, %s: the last round of the %d lock names leaves %lld (want %d)",
	       tag, layout, K, m->lock, keeps_lock ? K : 0);
}

static void run_mix(const struct ratio *r, int same)
{
	const char *layout = same ? "samedir" : "twodirs";
	struct mix m = { .total = n / r->spool * r->lock };
	char dir[1024], name[64];

	snprintf(name, sizeof(name), "mixed-%s-%s", r->tag, layout);
	make_dir(dir, mnt, name);
	if (same) {
		strcpy(m.spool_dir, dir);
		strcpy(m.lock_dir, dir);
	} else {
		make_dir(m.spool_dir, dir, "spool");
		make_dir(m.lock_dir, dir, "lock");
	}
	while (m.spooled < n) {
		lock_cycles(&m, r->lock);
		spool_names(&m, r->spool);
	}
	report_mix(r->tag, layout, &m);
}

/* Case 3: a lock file unlinked while held open, then created again. */
static void held_open(void)
{
	char dir[1024], lock[1024], path[1024];
	long long spool = 0;
	int i, fd;

	make_dir(dir, mnt, "mixed-held");
	join(lock, dir, "app.lock");
	for (i = 0; i < n; i++) {
		fd = create_open(lock);
		if (unlink(lock))
			tap_bail(errno, "unlink %s", lock);
		close(fd);
		spool += cycle(numbered(path, dir, "spool", i));
	}
	metric("mixed_heldopen_spool", spool, "max:0.01");
	tap_ok(near(spool, want_new(n), ndt_slack(n, 1)),
	       "held-open lock file: %d spool names unlinked 1:1 with it leave %lld (want %lld)",
	       n, spool, want_new(n));
}

/* Case 4: TREE_DIRS directories of @files files each; returns how many entries, root included. */
static int build_tree(const char *root, int files)
{
	char sub[1024], path[1024], name[32];
	int d, f;

	for (d = 0; d < TREE_DIRS; d++) {
		snprintf(name, sizeof(name), "d%d", d);
		make_dir(sub, root, name);
		for (f = 0; f < files; f++)
			create(numbered(path, sub, "f", f));
	}
	return TREE_DIRS * (files + 1) + 1;
}

static int is_dir_entry(const char *path, const struct dirent *e)
{
	struct stat st;

	if (e->d_type != DT_UNKNOWN)
		return e->d_type == DT_DIR;
	if (lstat(path, &st))
		tap_bail(errno, "lstat %s", path);
	return S_ISDIR(st.st_mode);
}

/* rmdir @path; returns how much nr_negative grew across it. */
static long long rmdir_counted(const char *path)
{
	long long before = nr_negative();

	if (rmdir(path))
		tap_bail(errno, "rmdir %s", path);
	return nr_negative() - before;
}

/*
 * Remove @path and everything under it, as rm -rf does.  Returns the
 * negatives the removals left, each counted when its unlink or rmdir
 * leaves it; *@own is what the rmdir of @path left.  An rmdir frees the
 * negatives of the directory's entries (shrink_dcache_parent()), so its
 * own is the growth across it plus its entries' own.
 */
static long long remove_tree(const char *path, long long *own)
{
	long long total = 0, entries = 0, sub_own, sub_total;
	char child[1024];
	struct dirent *e;
	DIR *d = opendir(path);

	if (!d)
		tap_bail(errno, "opendir %s", path);
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		join(child, path, e->d_name);
		if (is_dir_entry(child, e)) {
			sub_total = remove_tree(child, &sub_own);
			total += sub_total;
			entries += sub_own;
		} else {
			sub_own = unlink_counted(child);
			total += sub_own;
			entries += sub_own;
		}
	}
	closedir(d);
	*own = rmdir_counted(path) + entries;
	return total + *own;
}

static void lock_phase(const char *dir)
{
	char path[1024];
	int r, i;

	for (r = 0; r < LOCK_ROUNDS; r++)
		for (i = 0; i < K; i++)
			cycle(numbered(path, dir, "app.lock", i));
}

static void tree_removal(void)
{
	char dir[1024], lock[1024], root[1024];
	long long left, own;
	int entries;

	make_dir(dir, mnt, "mixed-tree");
	make_dir(lock, dir, "lock");
	entries = build_tree(make_dir(root, dir, "tree"), n * 5 / TREE_DIRS);
	lock_phase(lock);
	left = remove_tree(root, &own);
	metric("mixed_tree", left, "max:0.01");
	tap_ok(near(left, want_new(entries), ndt_slack(entries, TREE_DIRS + 2)),
	       "rm -rf of %d entries after %d rounds of %d lock names leaves %lld (want %lld)",
	       entries, LOCK_ROUNDS, K, left, want_new(entries));
}

/* Check what /proc/mounts shows; put a series kernel under lookup.  Returns the policy it had. */
static enum policy setup_policy(void)
{
	enum policy policy = expected_policy(mnt), found = policy;
	char seen[64];
	int err;

	tap_ok(shows_policy(mnt, policy, seen, sizeof(seen)),
	       "/proc/mounts shows %s (%s kernel, negdentry=%s)", seen,
	       expect_series() ? "series" : "stock", policy_names[policy]);
	if (expect_series() && policy != POLICY_LOOKUP) {
		err = set_policy(mnt, POLICY_LOOKUP);
		if (err)
			tap_bail(err, "remount %s with negdentry=lookup", mnt);
		policy = POLICY_LOOKUP;
	}
	tmpfs = is_tmpfs(mnt);
	keeps_all = policy == POLICY_ALL;
	keeps_lock = keeps_all || (policy == POLICY_LOOKUP && !tmpfs);
	tap_diag("%s: %s, %s kernel, negdentry=%s", mnt, tmpfs ? "tmpfs" : "ext2/3/4",
		 expect_series() ? "series" : "stock", policy_names[policy]);
	return found;
}

int main(int argc, char **argv)
{
	static const struct ratio ratios[] = {
		{ 1, 1, "1to1" }, { 4, 1, "4to1" }, { 1, 4, "1to4" },
	};
	enum policy found;
	int i, err;

	mnt = test_args(argc, argv, "N", &n);
	if (n < 4 * K || n % 4) {
		fprintf(stderr, "%s: N must be a multiple of 4, at least %d\n", argv[0], 4 * K);
		return 2;
	}
	tap_begin();
	found = setup_policy();
	reproducer();
	for (i = 0; i < 6; i++)
		run_mix(&ratios[i / 2], i % 2);
	held_open();
	tree_removal();
	if (expect_series() && found != POLICY_LOOKUP && (err = set_policy(mnt, found)))
		tap_bail(err, "remount %s with negdentry=%s", mnt, policy_names[found]);
	return tap_end();
}
