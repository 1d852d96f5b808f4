// SPDX-License-Identifier: GPL-2.0
/*
 * concur: a short, bounded concurrency smoke test of create, unlink,
 * mkdir, rmdir and lookups of the same few names.
 *
 *   concur MOUNTPOINT [OPS]
 *
 * OWNERS processes each own one file name and one directory name and
 * toggle them (create/unlink, mkdir/rmdir) OPS times in a fixed
 * pseudo-random order, recording their state in shared memory under a
 * sequence count (odd while an operation runs).  Every process also
 * looks up its own names, which must match its last action, and the
 * other owners' names: a lookup that ran while the owner's sequence
 * count stayed even must match the owner's recorded state; one that
 * overlapped an operation may see either state, but nothing else (no
 * error other than ENOENT).  OBSERVERS more processes only look up.
 * Every result is thus one a sequential order could give.  At the end the
 * directory must list exactly the names the owners think exist.  The
 * round runs under the policy the harness declares for the mount and, on
 * a series kernel, under each negdentry= value (policy_rounds(), ndt.h).
 */
#include "sem.h"
#include <sys/mman.h>

#define OWNERS 3
#define OBSERVERS 2

static int ops = 1500;
static const char *mnt;

struct owner {
	unsigned int seq;	/* odd while an operation runs */
	int file, dir;		/* what the owner's last action left */
};

static struct owner *shared;

static void names(const char *d, int i, char *f, char *dd, size_t len)
{
	if (snprintf(f, len, "%s/f%d", d, i) >= (int)len ||
	    snprintf(dd, len, "%s/d%d", d, i) >= (int)len)
		_exit(100);
}

static unsigned int rnd(unsigned int *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 16;
}

/* Look up owner @j's names; returns violations. */
static int observe(const char *d, int j, int self)
{
	char f[1024], dd[1024];
	unsigned int s1, s2;
	int want_f, want_d, got_f, got_d, bad = 0;

	names(d, j, f, dd, sizeof(f));
	s1 = __atomic_load_n(&shared[j].seq, __ATOMIC_SEQ_CST);
	want_f = __atomic_load_n(&shared[j].file, __ATOMIC_SEQ_CST);
	want_d = __atomic_load_n(&shared[j].dir, __ATOMIC_SEQ_CST);
	got_f = exists(f);
	got_d = exists(dd);
	s2 = __atomic_load_n(&shared[j].seq, __ATOMIC_SEQ_CST);
	if (got_f < 0 || got_d < 0) {
		fprintf(stderr, "lookup of %s or %s: %s\n", f, dd,
			strerror(-(got_f < 0 ? got_f : got_d)));
		return 1;
	}
	if (j == self || (s1 == s2 && !(s1 & 1))) {
		if (got_f != want_f) {
			fprintf(stderr, "%s: %s while its owner %s it (seq %u)\n", f,
				got_f ? "found" : "not found",
				want_f ? "created" : "removed", s1);
			bad++;
		}
		if (got_d != want_d) {
			fprintf(stderr, "%s: %s while its owner %s it (seq %u)\n", dd,
				got_d ? "found" : "not found",
				want_d ? "made" : "removed", s1);
			bad++;
		}
	}
	return bad;
}

static int owner(const char *d, int self, int nproc)
{
	char f[1024], dd[1024];
	unsigned int seed = 0x6e64 + self;
	struct owner *me = &shared[self];
	int i, bad = 0, r;

	names(d, self, f, dd, sizeof(f));
	for (i = 0; i < ops; i++) {
		switch (rnd(&seed) % 4) {
		case 0:
			__atomic_add_fetch(&me->seq, 1, __ATOMIC_SEQ_CST);
			if (me->file) {
				r = unlink(f) ? errno : 0;
			} else {
				r = touch(f);
			}
			if (r) {
				fprintf(stderr, "%s %s: %s\n", me->file ? "unlink" : "create",
					f, strerror(r));
				bad++;
			} else {
				__atomic_store_n(&me->file, !me->file, __ATOMIC_SEQ_CST);
			}
			__atomic_add_fetch(&me->seq, 1, __ATOMIC_SEQ_CST);
			break;
		case 1:
			__atomic_add_fetch(&me->seq, 1, __ATOMIC_SEQ_CST);
			r = (me->dir ? rmdir(dd) : mkdir(dd, 0755)) ? errno : 0;
			if (r) {
				fprintf(stderr, "%s %s: %s\n", me->dir ? "rmdir" : "mkdir",
					dd, strerror(r));
				bad++;
			} else {
				__atomic_store_n(&me->dir, !me->dir, __ATOMIC_SEQ_CST);
			}
			__atomic_add_fetch(&me->seq, 1, __ATOMIC_SEQ_CST);
			break;
		case 2:
			bad += observe(d, self, self);
			break;
		default:
			bad += observe(d, rnd(&seed) % nproc, self);
			break;
		}
	}
	return bad;
}

static int observer(const char *d, int self)
{
	unsigned int seed = 0x6f62 + self;
	int i, bad = 0;

	for (i = 0; i < 2 * ops; i++)
		bad += observe(d, rnd(&seed) % OWNERS, -1);
	return bad;
}

static void round_under(enum policy p, const char *tag)
{
	char d[512], f[1024], dd[1024];
	pid_t pids[OWNERS + OBSERVERS];
	int i, status, bad = 0, died = 0, listed, want = 0, final_ok = 1;

	tap_diag("round %s: negdentry=%s", tag, policy_names[p]);
	snprintf(d, sizeof(d), "%s/concur-%s", mnt, tag);
	if (mkdir(d, 0755))
		tap_bail(errno, "mkdir %s", d);
	memset(shared, 0, sizeof(*shared) * OWNERS);
	for (i = 0; i < OWNERS + OBSERVERS; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			tap_bail(errno, "fork");
		if (!pids[i]) {
			int b = i < OWNERS ? owner(d, i, OWNERS) : observer(d, i);

			_exit(b > 99 ? 99 : b);
		}
	}
	for (i = 0; i < OWNERS + OBSERVERS; i++) {
		if (waitpid(pids[i], &status, 0) != pids[i] || !WIFEXITED(status))
			died++;
		else
			bad += WEXITSTATUS(status);
	}
	tap_ok(!bad && !died,
	       "%s: %d owners x %d ops and %d observers on the same names: %d results no "
	       "sequential order gives%s", tag, OWNERS, ops, OBSERVERS, bad,
	       died ? ", a process died" : "");
	for (i = 0; i < OWNERS; i++) {
		names(d, i, f, dd, sizeof(f));
		want += shared[i].file + shared[i].dir;
		if (exists(f) != shared[i].file || exists(dd) != shared[i].dir)
			final_ok = 0;
	}
	listed = count_entries(d);
	tap_ok(final_ok && listed == want,
	       "%s: afterwards the names that exist are those the owners made (%d listed, %d)",
	       tag, listed, want);
	if (rm_tree(d))
		tap_bail(errno, "rm -r %s", d);
}

int main(int argc, char **argv)
{
	mnt = test_args(argc, argv, "OPS", &ops);
	shared = mmap(NULL, sizeof(*shared) * OWNERS, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		tap_bail(errno, "mmap");
	tap_begin();
	policy_rounds(mnt, round_under);
	return tap_end();
}
