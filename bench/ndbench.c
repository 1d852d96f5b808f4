// SPDX-License-Identifier: GPL-2.0
/*
 * ndbench: guest-side micro-benchmarks for the negative dentry series.
 *
 *   ndbench WORKLOAD DIR [ARGS...]
 *
 * Every workload works in a fresh directory DIR (created here) and prints
 * one or more lines for the host:
 *
 *   result WORKLOAD OPS NS          a timed loop: OPS operations in NS
 *                                   nanoseconds of CLOCK_MONOTONIC (under
 *                                   QEMU -icount shift=0 one guest
 *                                   nanosecond is one guest instruction)
 *   mem ROUND NR_DENTRY NR_NEGATIVE SLAB_ACTIVE SLAB_TOTAL OBJSIZE
 *   pc KEY VALUE                    page cache protection counters
 *   count WORKLOAD KEY VALUE        a counter of a workload (see below)
 *
 * Workloads (OPS is the number of timed operations):
 *   mem DIR ROUNDS N          the 2002 reproducer: N random names created
 *                             and all deleted, ROUNDS times; counters after
 *                             each round (round 0: before)
 *   miss DIR OPS              PATH-like search: 8 directories, 64 command
 *                             names found in the last one; stat() in order
 *                             (7 misses, then the hit); OPS stat calls
 *   relock DIR OPS            lock-file pattern: create+close+unlink of the
 *                             same name, OPS times
 *   fileset DIR NFILES OPS    webproxy-like fileset of NFILES names, 80%
 *                             present: delete a random present file, create
 *                             a random absent one (a name deleted earlier,
 *                             others intervened); a warm-up of
 *                             max(5 x NFILES, OPS/4) pairs, then OPS pairs
 *                             timed: the steady state, where few of the
 *                             window's removals are a name's first (count
 *                             fileset first_removals: how many were)
 *   webproxy DIR NFILES OPS   fileset plus a 4 KiB write to the new file
 *                             and 5 x open+read+close of present files
 *                             (filebench webproxy.f's flow); the same
 *                             warm-up, OPS iterations (count webproxy
 *                             first_removals)
 *   newnames DIR OPS          always-new names: create+close+unlink; then
 *                             the reclaim of what the loop left (echo 2 >
 *                             drop_caches: stock frees its negative
 *                             dentries there, later, instead of at each
 *                             unlink): result newnames-reclaim, the loop
 *                             and the reclaim together (the warm-up's
 *                             dentries are reclaimed before the clock
 *                             starts, so that only the loop's count)
 *   stat DIR NFILES OPS       stat() of existing files, round robin
 *   openclose DIR NFILES OPS  open(O_RDONLY)+close of existing files
 *   spool DIR OPS HOTFILE CHUNK
 *                             page cache protection: create+unlink always-
 *                             new long names OPS times, reading HOTFILE
 *                             fully after every CHUNK of them
 *   mixlock DIR SPOOL LOCK OPS
 *                             a spool and a lock file on one filesystem, in
 *                             two directories (DIR/spool, DIR/lock): each
 *                             iteration creates+closes+unlinks SPOOL always-
 *                             new spool names, then the lock name LOCK
 *                             times; OPS iterations; result and count lines
 *                             are labelled mixlock-SPOOL:LOCK
 *   mixlocksame DIR SPOOL LOCK OPS
 *                             the same with the spool and the lock file in
 *                             one directory (DIR/spool)
 *   heldlock DIR OPS          a lock file held open while unlinked:
 *                             open(O_CREAT)+unlink+close of the lock name,
 *                             then create+close+unlink of one always-new
 *                             spool name; OPS iterations
 *   shortfileset DIR NFILES OPS
 *                             a short fileset of NFILES names in DIR, OPS
 *                             random toggles: unlink the name if it exists,
 *                             else create it (rnd()'s fixed seed: both
 *                             kernels do the same work)
 *   tool DIR LABEL OPS LOG CLEAN CMD [ARGS...]
 *                             an external benchmark (fs_mark, postmark,
 *                             dbench) timed from outside: CMD runs in DIR
 *                             with stdout and stderr to LOG; with CLEAN 1
 *                             every regular file left under DIR is then
 *                             unlinked, in the timed step (fs_mark keeps
 *                             its files); a result line (OPS operations
 *                             over the guest ns of CMD + clean-up) if OPS
 *                             is above 0, and count lines: those of
 *                             every timed window (idle_ms, virtio_irqs,
 *                             rcu_softirqs: see struct window) and the
 *                             negative dentries left (negative_delta);
 *                             CMD failing is fatal
 *   smp DIR NFILES OPS        two threads (on two vCPUs) at once, each
 *                             OPS stat() of NFILES existing files round
 *                             robin (result smpstat-NFILES, 2 x OPS ops),
 *                             then each OPS open(O_RDONLY)+close (result
 *                             smpopen-NFILES): what the d_lock taken by
 *                             a final dput() with ->d_delete costs when
 *                             two CPUs share the dentries
 *   negdir DIR NMISS NFILES PASSES RMDIRS
 *                             readdir and rmdir of small directories after
 *                             lookup misses: NFILES files in DIR/d, stat()
 *                             of NMISS never-existing names in it (untimed;
 *                             count negdir-misses: the negative dentries
 *                             they left), then PASSES x opendir+readdir+
 *                             closedir of DIR/d (result negdir-readdir);
 *                             then RMDIRS directories DIR/rN of NFILES
 *                             files and NMISS / RMDIRS misses each, their
 *                             files and DIR/d removed (untimed), and an
 *                             rmdir of each (result negdir-rmdir, RMDIRS
 *                             ops: one rmdir of a few thousand
 *                             instructions took one of a few values 8 %
 *                             apart from boot to boot; count negdir-rmdir:
 *                             negative dentries left after them, against
 *                             before the misses)
 *   bigdir DIR NOTHERS NFILES OPS
 *                             a fileset in a big directory: NOTHERS other
 *                             files o%07d in DIR (untimed, or pre-made in
 *                             the image and counted; never touched
 *                             again), NFILES names f%07d, the first 80%
 *                             created; delete+create pairs picked in
 *                             rotation (filebench's fileset_pick: one rotor
 *                             over the present names, one over the absent
 *                             ones, so that a name comes back NFILES/5
 *                             pairs after its removal); a warm-up of
 *                             max(2 x NFILES, OPS/4) pairs (every name
 *                             removed twice), then OPS pairs (result and
 *                             count bigdir-NOTHERS-toggle); then, untimed,
 *                             K = min(NFILES, 1000) new names n%07d
 *                             created and unlinked, and timed: stat() of
 *                             each, all misses (result
 *                             bigdir-NOTHERS-relookup, K ops), then
 *                             create+close of each (result
 *                             bigdir-NOTHERS-recreate, K ops)
 *   busyspool DIR SPOOL CYCLES SAME
 *                             a lock file beside a busy spool: each cycle
 *                             creates+closes+unlinks SPOOL always-new
 *                             names in DIR/spool, then the lock name once,
 *                             in DIR/lock (SAME 0) or DIR/spool (SAME 1);
 *                             a warm-up of 1 cycle, then CYCLES cycles of
 *                             which only the lock's create+close+unlink are
 *                             timed (the clock read around each, after a
 *                             settle: the spool's deferred work runs
 *                             before it): result
 *                             busyspool-SPOOL-other-lock (or -same-lock),
 *                             count busyspool-SPOOL-other (or -same)
 *                             negative_delta (spool and lock together) and
 *                             spool_names (SPOOL x CYCLES: the spool names
 *                             unlinked in the timed cycles)
 *   calib DIR N               the idle check: after a settle, N rounds of a
 *                             loop that makes no system call (result
 *                             calib): the same instructions on every
 *                             kernel, so a boot whose ratio to stock's is
 *                             not 1 had other work running beside the
 *                             timed loops (the guest was not idle)
 *   million DIR N             N always-new names created+closed+unlinked
 *                             in one timed loop, with no warm-up, after a
 *                             reclaim of what came before (as newnames):
 *                             count million negative_delta and names (N),
 *                             then result million
 *
 * The mix workloads (mixlock, mixlocksame, heldlock) also print
 *
 *   count WORKLOAD negative_delta N  nr_negative (/proc/sys/fs/dentry-state)
 *                                   after the timed loop minus before it:
 *                                   the negative dentries the spool left
 *                                   (bigdir, busyspool and million print it
 *                                   too, with no -reclaim line)
 *   result WORKLOAD-reclaim OPS NS  then, as newnames-reclaim: echo 2 >
 *                                   drop_caches, NS the loop and the
 *                                   reclaim together (the steady state)
 *
 * The timed loops of relock, newnames and of the four above follow an
 * untimed warm-up of OPS/4 operations (the short fileset: at least 4 x
 * NFILES toggles, fileset and webproxy 5 x NFILES pairs, so that nearly
 * every name has come and gone: a name's first removal has no negative
 * dentry to keep under any policy, and a real fileset removes each name
 * many times).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "ndbench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* A fixed pseudo-random sequence: both kernels see the same names. */
static uint64_t rng = 0x6e6474656e746e64ULL;

static uint32_t rnd(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return rng >> 33;
}

static void touch(const char *name)
{
	int fd = open(name, O_CREAT | O_EXCL | O_WRONLY, 0644);

	if (fd < 0)
		die(name);
	close(fd);
}

/*
 * Before a timed loop: write back what setup dirtied, so that no I/O (whose
 * completion time is host time without -icount sleep=off) lands in the
 * loop; then idle for SETTLE_US, so that the work the setup deferred (RCU
 * callbacks freeing dentries, writeback and other kworkers) runs before the
 * clock starts, not inside the loop.  Under -icount shift=0,sleep=off the
 * idle time costs neither host time nor guest instructions.
 */
#define SETTLE_US 200000

static void settle(void)
{
	sync();
	usleep(SETTLE_US);
}

static void result(const char *workload, long long ops, long long ns)
{
	printf("result %s %lld %lld\n", workload, ops, ns);
	fflush(stdout);
}

static void count_line(const char *workload, const char *key, long long value)
{
	printf("count %s %s %lld\n", workload, key, value);
	fflush(stdout);
}

static void mkdir_p(const char *dir)
{
	if (mkdir(dir, 0755) && errno != EEXIST)
		die(dir);
}

static void mkdir_cd(const char *dir)
{
	mkdir_p(dir);
	if (chdir(dir))
		die(dir);
}

/* "dentry" line of /proc/slabinfo: active_objs num_objs objsize. */
static void dentry_slab(long long *active, long long *total, long long *size)
{
	char line[512], name[64];
	FILE *f = fopen("/proc/slabinfo", "r");

	*active = *total = *size = -1;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lld %lld %lld", name, active, total,
			   size) == 4 && !strcmp(name, "dentry"))
			break;
	fclose(f);
}

/* The first five fields of /proc/sys/fs/dentry-state; d[4]: nr_negative. */
static void dentry_state(long long d[5])
{
	FILE *f = fopen("/proc/sys/fs/dentry-state", "r");

	if (!f || fscanf(f, "%lld %lld %lld %lld %lld", &d[0], &d[1], &d[2],
			 &d[3], &d[4]) != 5)
		die("/proc/sys/fs/dentry-state");
	fclose(f);
}

static long long nr_negative(void)
{
	long long d[5];

	dentry_state(d);
	return d[4];
}

/*
 * The time the guest's CPUs were idle (and waiting for I/O), in ms, from
 * /proc/stat's tick-based accounting (USER_HZ: 10 ms steps): a timed
 * window with idle time in it waited for something (under -icount
 * sleep=off an idle vCPU moves the guest clock to its next timer).
 */
static long long idle_ms(void)
{
	unsigned long long v[5] = { 0 };
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/stat", "r");

	if (!f || fscanf(f, "cpu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
			 &v[3], &v[4]) != 5)
		die("/proc/stat");
	fclose(f);
	return (long long)(v[3] + v[4]) * 1000 / (hz > 0 ? hz : 100);
}

/*
 * The counts of PATH (/proc/interrupts, /proc/softirqs: "NAME: one column
 * per CPU, then text") summed over every CPU and every line WANTS takes.
 */
static long long proc_counts(const char *path, int (*wants)(const char *line))
{
	FILE *f = fopen(path, "r");
	char line[4096], *p, *end;
	long long sum = 0;

	if (!f)
		die(path);
	while (fgets(line, sizeof(line), f)) {
		p = strchr(line, ':');
		if (!p || !wants(line))
			continue;
		for (p++;; p = end) {
			long long v = strtoll(p, &end, 10);

			if (end == p)
				break;
			sum += v;
		}
	}
	fclose(f);
	return sum;
}

static int rcu_line(const char *line)
{
	return !strncmp(line + strspn(line, " "), "RCU:", 4);
}

/*
 * RCU softirqs so far, every CPU: each runs RCU's core work, and with it
 * the callbacks whose grace period has ended (the frees of dentries and
 * inodes that earlier unlinks deferred).  Their count in a timed window
 * says how much of that deferred work landed in it.
 */
static long long rcu_softirqs(void)
{
	return proc_counts("/proc/softirqs", rcu_line);
}

static int virtio_line(const char *line)
{
	return strstr(line, "virtio") != NULL;
}

/*
 * The interrupts of the guest's virtio devices so far: the replies of the
 * host root's 9p transport (and of the virtio disks, which an -icount
 * guest does not use once its images are in RAM disks).  One inside a
 * timed window is a wait for the host.
 */
static long long virtio_irqs(void)
{
	return proc_counts("/proc/interrupts", virtio_line);
}

static void mem_line(int round)
{
	long long d[5], a, t, s;

	dentry_state(d);
	dentry_slab(&a, &t, &s);
	printf("mem %d %lld %lld %lld %lld %lld\n", round, d[0], d[4], a, t, s);
	fflush(stdout);
}

static void mem(int rounds, int n)
{
	char (*names)[16] = malloc((size_t)n * sizeof(*names));
	int r, i;

	if (!names)
		die("malloc");
	sync();
	mem_line(0);
	for (r = 1; r <= rounds; r++) {
		for (i = 0; i < n; i++) {
			/* like ">$RANDOM": a random name, if not taken */
			snprintf(names[i], sizeof(names[i]), "%08x", rnd());
			int fd = open(names[i], O_CREAT | O_WRONLY, 0644);

			if (fd < 0)
				die(names[i]);
			close(fd);
		}
		for (i = 0; i < n; i++)
			if (unlink(names[i]) && errno != ENOENT)
				die(names[i]);
		mem_line(r);
	}
	free(names);
}

/*
 * A timed window: settle, read the counters, start the clock.  At its end
 * the result line, then count lines of what else happened in it: the ms
 * the CPU idled (idle_ms) and the virtio interrupts (virtio_irqs, the
 * host's 9p replies): under -icount sleep=off either moves the guest clock
 * by host events, not by the loop's instructions; and the RCU softirqs
 * (rcu_softirqs): whether the window ran the callbacks that free what its
 * own unlinks released, or left them to run after it.
 */
struct window {
	long long t0, neg0, idle0, irq0, rcu0;
};

static void window_start(struct window *w)
{
	settle();
	w->irq0 = virtio_irqs();
	w->idle0 = idle_ms();
	w->rcu0 = rcu_softirqs();
	w->neg0 = nr_negative();
	w->t0 = now_ns();
}

/* (no result line for OPS 0: a tool that times itself, as dbench) */
static void window_end(const struct window *w, const char *label, long long ops)
{
	long long ns = now_ns() - w->t0;

	if (ops > 0)
		result(label, ops, ns);
	count_line(label, "idle_ms", idle_ms() - w->idle0);
	count_line(label, "virtio_irqs", virtio_irqs() - w->irq0);
	count_line(label, "rcu_softirqs", rcu_softirqs() - w->rcu0);
}

static void miss(long long ops)
{
	enum { DIRS = 8, CMDS = 64 };
	char name[64];
	struct stat st;
	struct window w = { 0 };
	long long done = 0;
	int d, c, pass;

	for (d = 0; d < DIRS; d++) {
		snprintf(name, sizeof(name), "bin%d", d);
		if (mkdir(name, 0755))
			die(name);
	}
	for (c = 0; c < CMDS; c++) {
		snprintf(name, sizeof(name), "bin%d/command-%d", DIRS - 1, c);
		touch(name);
	}
	/* pass 0 warms the caches (and creates the negative dentries) */
	for (pass = 0; done < ops; pass++) {
		if (pass == 1)
			window_start(&w);
		for (c = 0; c < CMDS && (pass == 0 || done < ops); c++)
			for (d = 0; d < DIRS; d++) {
				snprintf(name, sizeof(name), "bin%d/command-%d", d, c);
				int hit = !stat(name, &st);

				if (!hit && errno != ENOENT)
					die(name);
				if (pass)
					done++;
				if (hit)
					break;
			}
	}
	window_end(&w, "miss", done);
}

static void relock(long long ops)
{
	struct window w;
	long long i;

	for (i = 0; i < ops / 4; i++) {
		touch("app.lock");
		if (unlink("app.lock"))
			die("unlink app.lock");
	}
	window_start(&w);
	for (i = 0; i < ops; i++) {
		touch("app.lock");
		if (unlink("app.lock"))
			die("unlink app.lock");
	}
	window_end(&w, "relock", ops);
}

/* filebench-like fileset: entries 0..n-1, 80% present at the start. */
static char *present;
static int nfiles, npresent;

static void fs_name(char *buf, size_t len, int i)
{
	snprintf(buf, len, "%05d/file%07d", i % 100, i);
}

static void fileset_setup(int n)
{
	char name[64];
	int i;

	nfiles = n;
	present = calloc(n, 1);
	if (!present)
		die("calloc");
	for (i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "%05d", i);
		if (mkdir(name, 0755))
			die(name);
	}
	for (i = 0; i < n; i++)
		if (rnd() % 10 < 8) {
			fs_name(name, sizeof(name), i);
			touch(name);
			present[i] = 1;
			npresent++;
		}
}

static int pick(int want)
{
	int i;

	do
		i = rnd() % nfiles;
	while (present[i] != want);
	return i;
}

static void fileset(const char *label, int n, long long ops, int data)
{
	static char buf[4096];
	char name[64], *removed;
	struct window w = { 0 };
	long long it, warm = ops / 4 > 5LL * n ? ops / 4 : 5LL * n, first = 0;
	int i, k, fd;

	fileset_setup(n);
	removed = calloc(n, 1);
	if (!removed)
		die("calloc");
	if (data) {
		/* give the present files their 4 KiB */
		for (i = 0; i < n; i++)
			if (present[i]) {
				fs_name(name, sizeof(name), i);
				fd = open(name, O_WRONLY);
				if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf))
					die(name);
				close(fd);
			}
	}
	for (it = -warm; it < ops; it++) {
		if (it == 0)
			window_start(&w);
		i = pick(1);
		fs_name(name, sizeof(name), i);
		if (unlink(name))
			die(name);
		present[i] = 0;
		if (!removed[i] && it >= 0)
			first++;
		removed[i] = 1;
		i = pick(0);
		fs_name(name, sizeof(name), i);
		fd = open(name, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0)
			die(name);
		if (data && write(fd, buf, sizeof(buf)) != sizeof(buf))
			die(name);
		close(fd);
		present[i] = 1;
		for (k = 0; data && k < 5; k++) {
			fs_name(name, sizeof(name), pick(1));
			fd = open(name, O_RDONLY);
			if (fd < 0 || read(fd, buf, sizeof(buf)) < 0)
				die(name);
			close(fd);
		}
	}
	window_end(&w, label, ops);
	count_line(label, "first_removals", first);
	free(removed);
}

/* reclaim every unused dentry and inode (what memory pressure would do) */
static void drop_slab(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	if (fd < 0 || write(fd, "2\n", 2) != 2)
		die("/proc/sys/vm/drop_caches");
	close(fd);
}

static void newnames(long long ops)
{
	char name[64];
	struct window w = { 0 };
	long long i;

	for (i = -(ops / 4); i < ops; i++) {
		if (i == 0) {
			/* newnames-reclaim: only what the timed loop left */
			drop_slab();
			window_start(&w);
		}
		snprintf(name, sizeof(name), "new%lld", i);
		touch(name);
		if (unlink(name))
			die(name);
	}
	window_end(&w, "newnames", ops);
	drop_slab();
	result("newnames-reclaim", ops, now_ns() - w.t0);
}

static void existing(const char *label, int n, long long ops, int do_open)
{
	char (*names)[16] = malloc((size_t)n * sizeof(*names));
	struct stat st;
	struct window w;
	long long i;
	int fd;

	if (!names)
		die("malloc");
	for (i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "f%lld", i);
		touch(names[i]);
	}
	/* one warm pass */
	for (i = 0; i < n; i++)
		if (stat(names[i], &st))
			die(names[i]);
	window_start(&w);
	for (i = 0; i < ops; i++) {
		const char *name = names[i % n];

		if (do_open) {
			fd = open(name, O_RDONLY);
			if (fd < 0)
				die(name);
			close(fd);
		} else if (stat(name, &st)) {
			die(name);
		}
	}
	window_end(&w, label, ops);
	free(names);
}

struct smp_arg {
	char (*names)[16];
	int n;
	long long ops;
	pthread_barrier_t *bar;
};

/* between the barriers: OPS stat(), then OPS open+close */
static void *smp_thread(void *p)
{
	struct smp_arg *a = p;
	struct stat st;
	long long i;
	int fd;

	pthread_barrier_wait(a->bar);
	for (i = 0; i < a->ops; i++)
		if (stat(a->names[i % a->n], &st))
			die(a->names[i % a->n]);
	pthread_barrier_wait(a->bar);
	pthread_barrier_wait(a->bar);
	for (i = 0; i < a->ops; i++) {
		fd = open(a->names[i % a->n], O_RDONLY);
		if (fd < 0)
			die(a->names[i % a->n]);
		close(fd);
	}
	pthread_barrier_wait(a->bar);
	return NULL;
}

static void smp(int n, long long ops)
{
	char (*names)[16] = malloc((size_t)n * sizeof(*names));
	char label[32];
	struct stat st;
	pthread_barrier_t bar;
	pthread_t th[2];
	struct smp_arg a;
	long long t0;
	int i;

	if (!names)
		die("malloc");
	for (i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "f%d", i);
		touch(names[i]);
		if (stat(names[i], &st))
			die(names[i]);
	}
	a = (struct smp_arg){ names, n, ops, &bar };
	pthread_barrier_init(&bar, NULL, 3);
	for (i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, smp_thread, &a))
			die("pthread_create");
	settle();
	t0 = now_ns();
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar);
	snprintf(label, sizeof(label), "smpstat-%d", n);
	result(label, 2 * ops, now_ns() - t0);
	t0 = now_ns();
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar);
	snprintf(label, sizeof(label), "smpopen-%d", n);
	result(label, 2 * ops, now_ns() - t0);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&bar);
	free(names);
}

/*
 * The timed loop of a mix workload: drop_slab() (what the warm-up left),
 * settle, then nr_negative and the clock before it; result and count lines
 * after it, then drop_slab() and a
 * result line labelled LABEL-reclaim: the loop and the reclaim together,
 * from the same t0 (the count is taken before the reclaim).
 */
static void timed_start(struct window *t)
{
	/* the -reclaim result must not count what the warm-up left */
	drop_slab();
	window_start(t);
}

static void timed_end(struct window *t, const char *label, long long ops)
{
	char reclaim[96];

	window_end(t, label, ops);
	count_line(label, "negative_delta", nr_negative() - t->neg0);
	/* the steady state: the loop plus the reclaim of what it left */
	drop_slab();
	snprintf(reclaim, sizeof(reclaim), "%s-reclaim", label);
	result(reclaim, ops, now_ns() - t->t0);
}

/* create+close+unlink */
static void touch_unlink(const char *name)
{
	touch(name);
	if (unlink(name))
		die(name);
}

/*
 * SPOOL always-new names in SPOOLDIR, then LOCK cycles of the lock file
 * in LOCKDIR, per iteration.
 */
static void mixlock(const char *w, const char *spooldir, const char *lockdir,
		    int nspool, int nlock, long long ops)
{
	char label[64], name[64], lock[64];
	long long it, seq = 0;
	struct window t = { 0 };
	int k;

	snprintf(label, sizeof(label), "%s-%d:%d", w, nspool, nlock);
	snprintf(lock, sizeof(lock), "%s/app.lock", lockdir);
	mkdir_p(spooldir);
	mkdir_p(lockdir);
	for (it = -(ops / 4); it < ops; it++) {
		if (it == 0)
			timed_start(&t);
		for (k = 0; k < nspool; k++) {
			snprintf(name, sizeof(name), "%s/msg%lld", spooldir, seq++);
			touch_unlink(name);
		}
		for (k = 0; k < nlock; k++)
			touch_unlink(lock);
	}
	timed_end(&t, label, ops);
}

/* The lock file is unlinked while open: unlink leaves no negative dentry. */
static void heldlock(long long ops)
{
	char name[64];
	long long it;
	struct window t = { 0 };
	int fd;

	for (it = -(ops / 4); it < ops; it++) {
		if (it == 0)
			timed_start(&t);
		fd = open("app.lock", O_CREAT | O_RDWR, 0644);
		if (fd < 0)
			die("app.lock");
		if (unlink("app.lock"))
			die("unlink app.lock");
		close(fd);
		snprintf(name, sizeof(name), "msg%lld", it);
		touch_unlink(name);
	}
	timed_end(&t, "heldlock", ops);
}

/* NFILES names, each toggled at random: names come back soon. */
static void shortfileset(int n, long long ops)
{
	char name[64];
	char *exists = calloc(n, 1);
	struct window w = { 0 };
	long long it, warm = ops / 4 > 4LL * n ? ops / 4 : 4LL * n;
	int i;

	if (!exists || n < 1)
		die("shortfileset");
	/* rnd() starts from its fixed seed: the same toggles on every kernel */
	for (it = -warm; it < ops; it++) {
		if (it == 0)
			window_start(&w);
		i = rnd() % n;
		snprintf(name, sizeof(name), "s%06d", i);
		if (exists[i]) {
			if (unlink(name))
				die(name);
		} else {
			touch(name);
		}
		exists[i] = !exists[i];
	}
	window_end(&w, "shortfileset", ops);
	free(exists);
}

static long long cleaned;

static int unlink_file(const char *path, const struct stat *st, int type,
		       struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_F || type == FTW_SL) {
		if (unlink(path))
			die(path);
		cleaned++;
	}
	return 0;
}

/* An external benchmark, timed from outside (see the top of the file). */
static void tool(const char *label, long long ops, const char *log, int clean,
		 char **cmd)
{
	struct window t = { 0 };
	int status;
	pid_t pid;

	timed_start(&t);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		int fd = open(log, O_CREAT | O_TRUNC | O_WRONLY, 0644);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			die(log);
		close(fd);
		execvp(cmd[0], cmd);
		die(cmd[0]);
	}
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "ndbench tool %s: %s failed (status %#x), see %s\n",
			label, cmd[0], status, log);
		exit(1);
	}
	if (clean && nftw(".", unlink_file, 64, FTW_PHYS | FTW_DEPTH))
		die("nftw");
	window_end(&t, label, ops);
	count_line(label, "negative_delta", nr_negative() - t.neg0);
	if (clean)
		count_line(label, "cleaned", cleaned);
}

/* The name of file I of the readdir/rmdir test's directory DIR. */
static void negdir_file(char *name, size_t len, const char *dir, int i)
{
	if (snprintf(name, len, "%s/file%d", dir, i) >= (int)len)
		die(dir);
}

/* NFILES files in directory DIR, made if need be. */
static void negdir_fill(const char *dir, int nfiles)
{
	char name[64];
	int i;

	mkdir_p(dir);
	for (i = 0; i < nfiles; i++) {
		negdir_file(name, sizeof(name), dir, i);
		touch(name);
	}
}

/* stat() of names FIRST .. FIRST + N - 1 in DIR, none of which exists. */
static void negdir_miss(const char *dir, long long first, long long n)
{
	char name[64];
	struct stat st;
	long long i;

	for (i = first; i < first + n; i++) {
		if (snprintf(name, sizeof(name), "%s/miss%07lld", dir, i) >=
		    (int)sizeof(name))
			die(dir);
		if (!stat(name, &st) || errno != ENOENT)
			die(name);
	}
}

/* The NFILES files of DIR unlinked. */
static void negdir_empty(const char *dir, int nfiles)
{
	char name[64];
	int i;

	for (i = 0; i < nfiles; i++) {
		negdir_file(name, sizeof(name), dir, i);
		if (unlink(name))
			die(name);
	}
}

/*
 * Readdir of a small directory after NMISS lookup misses in it, and rmdir
 * of RMDIRS small directories after NMISS / RMDIRS misses in each.
 */
static void negdir(long long nmiss, int nfiles, long long passes,
		   long long rmdirs)
{
	char name[64];
	struct dirent *de;
	struct window w;
	long long i, neg0, n;
	DIR *dir;

	if (rmdirs < 1)
		die("negdir: RMDIRS < 1");
	negdir_fill("d", nfiles);
	for (i = 0; i < rmdirs; i++) {
		snprintf(name, sizeof(name), "r%lld", i);
		negdir_fill(name, nfiles);
	}
	settle();
	neg0 = nr_negative();
	negdir_miss("d", 0, nmiss);
	count_line("negdir-misses", "negative_delta", nr_negative() - neg0);
	window_start(&w);
	for (i = 0; i < passes; i++) {
		dir = opendir("d");
		if (!dir)
			die("opendir d");
		for (n = 0; (de = readdir(dir)); n++)
			;
		closedir(dir);
		if (n != nfiles + 2) {
			fprintf(stderr, "ndbench negdir: %lld entries, not %d\n", n,
				nfiles + 2);
			exit(1);
		}
	}
	window_end(&w, "negdir-readdir", passes);
	negdir_empty("d", nfiles);
	if (rmdir("d"))
		die("rmdir d");
	for (i = 0; i < rmdirs; i++) {
		snprintf(name, sizeof(name), "r%lld", i);
		negdir_miss(name, i * (nmiss / rmdirs), nmiss / rmdirs);
		negdir_empty(name, nfiles);
	}
	window_start(&w);
	for (i = 0; i < rmdirs; i++) {
		snprintf(name, sizeof(name), "r%lld", i);
		if (rmdir(name))
			die(name);
	}
	window_end(&w, "negdir-rmdir", rmdirs);
	count_line("negdir-rmdir", "negative_delta", nr_negative() - neg0);
}

/* A fileset in one directory, picked in rotation like filebench's. */
struct rotation {
	char *present;
	int n;
	int rotor[2];	/* [0]: over the absent names, [1]: the present */
};

/* The next name at or after the rotor that is (WANT 1) or is not present. */
static int rotate(struct rotation *r, int want)
{
	int i = r->rotor[want];

	while (r->present[i] != want)
		i = (i + 1) % r->n;
	r->rotor[want] = (i + 1) % r->n;
	return i;
}

/* delete a present name, then create an absent one */
static void bigdir_toggle(struct rotation *r)
{
	char name[32];
	int i = rotate(r, 1);

	snprintf(name, sizeof(name), "f%07d", i);
	if (unlink(name))
		die(name);
	r->present[i] = 0;
	i = rotate(r, 0);
	snprintf(name, sizeof(name), "f%07d", i);
	touch(name);
	r->present[i] = 1;
}

/* K names unlinked (stock keeps their dentries): stat() all, create all. */
static void bigdir_again(int nothers, int k)
{
	char label[64], name[32];
	struct stat st;
	long long t0, ns;
	int i;

	for (i = 0; i < k; i++) {
		snprintf(name, sizeof(name), "n%07d", i);
		touch_unlink(name);
	}
	settle();
	t0 = now_ns();
	for (i = 0; i < k; i++) {
		snprintf(name, sizeof(name), "n%07d", i);
		if (!stat(name, &st) || errno != ENOENT)
			die(name);
	}
	ns = now_ns() - t0;
	snprintf(label, sizeof(label), "bigdir-%d-relookup", nothers);
	result(label, k, ns);
	t0 = now_ns();
	for (i = 0; i < k; i++) {
		snprintf(name, sizeof(name), "n%07d", i);
		touch(name);
	}
	ns = now_ns() - t0;
	snprintf(label, sizeof(label), "bigdir-%d-recreate", nothers);
	result(label, k, ns);
}

/*
 * The NOTHERS files o0000000... of a big directory: made here, or made with
 * the image (bench/run.sh: mke2fs -d), which on ext2 saves a scan of the
 * growing directory per create; then they are counted, not trusted.
 */
static void bigdir_others(int nothers)
{
	struct dirent *e;
	char name[32];
	int i, found = 0;
	DIR *d;

	if (access("o0000000", F_OK)) {
		for (i = 0; i < nothers; i++) {
			snprintf(name, sizeof(name), "o%07d", i);
			touch(name);
		}
		return;
	}
	d = opendir(".");
	if (!d)
		die("opendir");
	while ((e = readdir(d)))
		found += e->d_name[0] == 'o';
	closedir(d);
	if (found != nothers) {
		fprintf(stderr, "ndbench bigdir: %d pre-made files o*, not NOTHERS=%d\n",
			found, nothers);
		exit(2);
	}
}

/* NFILES names toggled in rotation beside NOTHERS files never touched. */
static void bigdir(int nothers, int n, long long ops)
{
	struct rotation r = { calloc(n, 1), n, { n - n / 5, 0 } };
	long long it, t0, ns, neg0, warm = ops / 4 > 2LL * n ? ops / 4 : 2LL * n;
	char label[64], name[32];
	int i;

	if (!r.present)
		die("calloc");
	bigdir_others(nothers);
	/* the absent names' rotor starts at the first absent name */
	for (i = 0; i < r.rotor[0]; i++) {
		snprintf(name, sizeof(name), "f%07d", i);
		touch(name);
		r.present[i] = 1;
	}
	for (it = 0; it < warm; it++)
		bigdir_toggle(&r);
	settle();
	neg0 = nr_negative();
	t0 = now_ns();
	for (it = 0; it < ops; it++)
		bigdir_toggle(&r);
	ns = now_ns() - t0;
	snprintf(label, sizeof(label), "bigdir-%d-toggle", nothers);
	result(label, ops, ns);
	count_line(label, "negative_delta", nr_negative() - neg0);
	free(r.present);
	bigdir_again(nothers, n < 1000 ? n : 1000);
}

/* SPOOL always-new spool names, then the lock file once, per cycle. */
static void busyspool(int nspool, long long cycles, int same)
{
	char label[64], result_label[80], name[64], lock[32];
	long long c, t0, ns = 0, neg0 = 0, seq = 0;
	int k;

	snprintf(label, sizeof(label), "busyspool-%d-%s", nspool,
		 same ? "same" : "other");
	snprintf(lock, sizeof(lock), "%s/app.lock", same ? "spool" : "lock");
	mkdir_p("spool");
	mkdir_p(same ? "spool" : "lock");
	/* cycle -1: the warm-up */
	for (c = -1; c < cycles; c++) {
		if (c == 0) {
			settle();
			neg0 = nr_negative();
		}
		for (k = 0; k < nspool; k++) {
			snprintf(name, sizeof(name), "spool/s%09lld", seq++);
			touch_unlink(name);
		}
		/*
		 * the spool's deferred work (RCU callbacks of the dentries it
		 * freed, writeback) runs before the clock starts, not in the
		 * few microseconds the lock cycle takes
		 */
		if (c >= 0)
			settle();
		t0 = now_ns();
		touch_unlink(lock);
		if (c >= 0)
			ns += now_ns() - t0;
	}
	snprintf(result_label, sizeof(result_label), "%s-lock", label);
	result(result_label, cycles, ns);
	count_line(label, "negative_delta", nr_negative() - neg0);
	count_line(label, "spool_names", nspool * cycles);
}

/* The idle check: CPU only, no system call, after a settle. */
static void calib(long long n)
{
	volatile unsigned long long x = 0;
	long long i, t0;

	settle();
	t0 = now_ns();
	for (i = 0; i < n; i++)
		x += i ^ (x >> 3);
	result("calib", n, now_ns() - t0);
}

/* N always-new names, one timed loop: how many negative dentries stay. */
static void million(long long n)
{
	struct window t;
	char name[32];
	long long i, ns;

	/* as newnames: reclaim what came before, count only this loop */
	timed_start(&t);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "m%09lld", i);
		touch_unlink(name);
	}
	ns = now_ns() - t.t0;
	count_line("million", "negative_delta", nr_negative() - t.neg0);
	count_line("million", "names", n);
	result("million", n, ns);
}

static long long vmstat(const char *key)
{
	char k[128];
	long long v;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		die("/proc/vmstat");
	while (fscanf(f, "%127s %lld", k, &v) == 2)
		if (!strcmp(k, key)) {
			fclose(f);
			return v;
		}
	fclose(f);
	return -1;
}

static long long meminfo(const char *key)
{
	char line[256];
	long long v = -1;
	size_t len = strlen(key);
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		die("/proc/meminfo");
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':') {
			v = atoll(line + len + 1);
			break;
		}
	fclose(f);
	return v;
}

/* Pages of @fd's file resident in the page cache. */
static long long resident(int fd, off_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t pages = (size + page - 1) / page;
	unsigned char *vec = malloc(pages);
	void *map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	long long n = 0;
	size_t i;

	if (!vec || map == MAP_FAILED)
		die("mmap");
	if (mincore(map, size, vec))
		die("mincore");
	for (i = 0; i < pages; i++)
		n += vec[i] & 1;
	munmap(map, size);
	free(vec);
	return n;
}

/* Read @fd fully; returns the guest nanoseconds it took. */
static long long read_all(int fd)
{
	static char buf[1 << 16];
	long long t0 = now_ns();

	if (lseek(fd, 0, SEEK_SET) < 0)
		die("lseek");
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	return now_ns() - t0;
}

static const char *const pc_vmstat[] = {
	"workingset_refault_file", "workingset_activate_file",
	"workingset_restore_file", "pgpgin", "pgmajfault", "pgscan_kswapd",
	"pgscan_direct", "pgsteal_kswapd", "pgsteal_direct", "slabs_scanned",
	"allocstall_normal", "allocstall_movable", "pginodesteal",
	"kswapd_inodesteal", NULL,
};

static void pc_counters(const char *when, long long *base)
{
	int i;

	for (i = 0; pc_vmstat[i]; i++) {
		long long v = vmstat(pc_vmstat[i]);

		if (base && !when)
			base[i] = v;
		else if (when)
			printf("pc %s_%s %lld\n", when, pc_vmstat[i],
			       base ? v - base[i] : v);
	}
}

static void spool(long long ops, const char *hot, long long chunk)
{
	long long base[32], i, t0, spool_ns = 0, rd_ns = 0, reads = 0;
	long long res_min = -1, r;
	char name[300];
	struct stat st;
	int fd = open(hot, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		die(hot);
	/* the hot working set: read twice so that it is active */
	read_all(fd);
	read_all(fd);
	sync();
	printf("pc hot_pages %lld\n", (long long)(st.st_size / 4096));
	printf("pc resident_before %lld\n", resident(fd, st.st_size));
	printf("pc memfree_before_kb %lld\n", meminfo("MemFree"));
	printf("pc sreclaimable_before_kb %lld\n", meminfo("SReclaimable"));
	pc_counters(NULL, base);
	for (i = 0; i < ops; i += chunk) {
		long long j, end = i + chunk < ops ? i + chunk : ops;

		t0 = now_ns();
		for (j = i; j < end; j++) {
			/*
			 * long names (250 bytes): each negative dentry also
			 * holds an external name buffer (kmalloc-512)
			 */
			snprintf(name, sizeof(name),
				 "msg.%012lld.%0227d.spool", j, 0);
			touch(name);
			if (unlink(name))
				die(name);
		}
		spool_ns += now_ns() - t0;
		r = resident(fd, st.st_size);
		if (res_min < 0 || r < res_min)
			res_min = r;
		rd_ns += read_all(fd);
		reads++;
	}
	printf("pc resident_min %lld\n", res_min);
	printf("pc resident_after %lld\n", resident(fd, st.st_size));
	printf("pc memfree_after_kb %lld\n", meminfo("MemFree"));
	printf("pc sreclaimable_after_kb %lld\n", meminfo("SReclaimable"));
	printf("pc hot_reads %lld\n", reads);
	printf("pc hot_read_ns %lld\n", rd_ns);
	pc_counters("delta", base);
	mem_line(-1);
	result("spool", ops, spool_ns);
	close(fd);
}

static long long arg(int argc, char **argv, int i)
{
	if (i >= argc) {
		fprintf(stderr, "ndbench %s: missing argument %d\n", argv[1], i - 2);
		exit(2);
	}
	return atoll(argv[i]);
}

/* bounds of the checked counts: names numbered %07d, ops below 10^12 */
#define NAMES_MAX 9999999LL
#define SPOOL_MAX 1000000LL
#define OPS_MAX 999999999999LL

/* arg() as a number in MIN..MAX: anything else is fatal. */
static long long count_arg(int argc, char **argv, int i, const char *what,
			   long long min, long long max)
{
	char *end;
	long long v;

	arg(argc, argv, i);
	errno = 0;
	v = strtoll(argv[i], &end, 10);
	if (errno || end == argv[i] || *end || v < min || v > max) {
		fprintf(stderr, "ndbench %s: %s must be a number in %lld..%lld, not '%s'\n",
			argv[1], what, min, max, argv[i]);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	const char *w;

	if (argc < 3) {
		fprintf(stderr, "usage: ndbench WORKLOAD DIR [ARGS...]\n");
		return 2;
	}
	w = argv[1];
	/* resolve HOTFILE before leaving the current directory */
	char *hot = argc > 4 && !strcmp(w, "spool") ? realpath(argv[4], NULL) : NULL;

	mkdir_cd(argv[2]);
	if (!strcmp(w, "mem"))
		mem(arg(argc, argv, 3), arg(argc, argv, 4));
	else if (!strcmp(w, "miss"))
		miss(arg(argc, argv, 3));
	else if (!strcmp(w, "relock"))
		relock(arg(argc, argv, 3));
	else if (!strcmp(w, "fileset"))
		fileset("fileset", arg(argc, argv, 3), arg(argc, argv, 4), 0);
	else if (!strcmp(w, "webproxy"))
		fileset("webproxy", arg(argc, argv, 3), arg(argc, argv, 4), 1);
	else if (!strcmp(w, "newnames"))
		newnames(arg(argc, argv, 3));
	else if (!strcmp(w, "stat"))
		existing("stat", arg(argc, argv, 3), arg(argc, argv, 4), 0);
	else if (!strcmp(w, "openclose"))
		existing("openclose", arg(argc, argv, 3), arg(argc, argv, 4), 1);
	else if (!strcmp(w, "mixlock"))
		mixlock(w, "spool", "lock", arg(argc, argv, 3), arg(argc, argv, 4),
			arg(argc, argv, 5));
	else if (!strcmp(w, "mixlocksame"))
		mixlock(w, "spool", "spool", arg(argc, argv, 3),
			arg(argc, argv, 4), arg(argc, argv, 5));
	else if (!strcmp(w, "heldlock"))
		heldlock(arg(argc, argv, 3));
	else if (!strcmp(w, "shortfileset"))
		shortfileset(arg(argc, argv, 3), arg(argc, argv, 4));
	else if (!strcmp(w, "tool")) {
		if (argc < 8) {
			fprintf(stderr, "usage: ndbench tool DIR LABEL OPS LOG CLEAN CMD [ARGS...]\n");
			return 2;
		}
		tool(argv[3], arg(argc, argv, 4), argv[5], arg(argc, argv, 6), argv + 7);
	} else if (!strcmp(w, "smp"))
		smp(arg(argc, argv, 3), arg(argc, argv, 4));
	else if (!strcmp(w, "negdir"))
		negdir(arg(argc, argv, 3), arg(argc, argv, 4), arg(argc, argv, 5),
		       arg(argc, argv, 6));
	else if (!strcmp(w, "bigdir"))
		bigdir(count_arg(argc, argv, 3, "NOTHERS", 0, NAMES_MAX),
		       count_arg(argc, argv, 4, "NFILES", 5, NAMES_MAX),
		       count_arg(argc, argv, 5, "OPS", 1, OPS_MAX));
	else if (!strcmp(w, "busyspool"))
		busyspool(count_arg(argc, argv, 3, "SPOOL", 1, SPOOL_MAX),
			  count_arg(argc, argv, 4, "CYCLES", 1, OPS_MAX),
			  count_arg(argc, argv, 5, "SAME", 0, 1));
	else if (!strcmp(w, "calib"))
		calib(count_arg(argc, argv, 3, "N", 1, OPS_MAX));
	else if (!strcmp(w, "million"))
		million(count_arg(argc, argv, 3, "N", 1, OPS_MAX));
	else if (!strcmp(w, "spool")) {
		if (!hot)
			die(argc > 4 ? argv[4] : "spool: no HOTFILE");
		spool(arg(argc, argv, 3), hot, arg(argc, argv, 5));
	} else {
		fprintf(stderr, "ndbench: unknown workload %s\n", w);
		return 2;
	}
	free(hot);
	return 0;
}
