// SPDX-License-Identifier: GPL-2.0
/*
 * ndstress: bounded concurrent namespace stress with a model.
 *
 *   ndstress run MNT [options]      stress, then check the tree
 *   ndstress verify MNT [options]   check the tree against a manifest
 *
 * The tree is MNT/TREE (default TREE "stress") with four directories
 * d0..d3.  P worker processes run a fixed number of operations each:
 *
 *  - owned names "wI_K" (K < 12): only worker I touches them, so the
 *    worker keeps an exact model (directory, type, content, inode) and
 *    checks every result against it as it goes: a name it removed must
 *    answer ENOENT, a name it created must be there with its content.
 *    Operations: create+write, mkdir, symlink, mknod (fifo), link,
 *    rename (other directory, over another owned name, RENAME_EXCHANGE,
 *    RENAME_NOREPLACE), unlink, rmdir, rewrite, open+unlink+read of an
 *    open file, stat (plain, via "..") and open of missing names.
 *  - shared names "xK" (K < 8): every worker creates, unlinks, renames,
 *    links, mkdirs and rmdirs them at random; only the errors a race can
 *    explain are accepted (ENOENT, EEXIST, EISDIR, ...) and contents must
 *    be well-formed.
 *  - names "mK" are never created: looking them up must say ENOENT.
 *
 * One more process switches the negdentry= policy of a mount (-r MNT) by
 * remount at random intervals while the workers run.
 *
 * Afterwards the parent checks, over the whole universe of names in every
 * directory, that stat and readdir agree, that owned names match the
 * workers' models, that shared files hold well-formed contents and that
 * every inode's link count equals the names found for it, and that no
 * removed or never-created name is visible.  It writes the tree it saw to
 * a manifest (-M); "verify" checks a tree against such a manifest after a
 * remount or cache drop, so what the dcache showed is what the disk holds.
 *
 * Fault modes (-f slab|eio): the workers mark themselves for fault
 * injection (/proc/self/make-it-fail; the harness sets up failslab or
 * fail_make_request).  Errors such as ENOMEM, EIO, EROFS must then come
 * back cleanly: they are counted by errno, the worker re-reads the state
 * of the names involved from the filesystem and goes on.  A contradiction
 * (a removed name visible, a created name missing, another name's
 * contents) is a failure in every mode.
 *
 * Each worker logs what it did to LOGDIR/wI.log (-l).  Output is TAP.
 */
#include "ndstress.h"

struct shared *sh;
struct wstat *me;
int wid, nworkers = 4, nfs, allow_nfs_names, no_exchange, no_noreplace, fstype_tmpfs;
long nops = 2000;
unsigned long long seed = 1;
enum fmode fmode;
const char *mnt, *tree = "stress", *remount_target, *manifest, *logdir, *fault_off;
char root[4096];
int rootfd, dfd[NDIRS];
FILE *wlog;
uint64_t rng;
const char *const tname[] = { "none", "file", "dir", "symlink", "fifo", "unknown" };

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

int rn(int n)
{
	return (int)(rnd() % (uint64_t)n);
}

void logop(const char *fmt, ...)
{
	va_list ap;

	if (!wlog)
		return;
	fprintf(wlog, "%ld ", me->ops);
	va_start(ap, fmt);
	vfprintf(wlog, fmt, ap);
	va_end(ap);
	fputc('\n', wlog);
}

void contra(const char *fmt, ...)
{
	va_list ap;
	char buf[160];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (fmode == F_EIO) {
		/*
		 * After a failed write, a buffer is no longer uptodate and
		 * is read again from the disk, which holds the old block:
		 * names come back or disappear on any kernel.  Counted and
		 * logged, not judged.
		 */
		me->eio_incons++;
		logop("INCONSISTENT after I/O errors: %s", buf);
		return;
	}
	if (me->contra < MAXCONTRA)
		snprintf(me->contra_msg[me->contra], sizeof(me->contra_msg[0]),
			 "op %ld: %s", me->ops, buf);
	me->contra++;
	logop("CONTRADICTION %s", buf);
}

void count_err(int e)
{
	me->err[e < MAXERR ? e : 0]++;
}

/* Errors fault injection may cause (and, on NFS, ESTALE). */
int injected_errno(int e)
{
	if (e == ESTALE && nfs)
		return 1;
	if (fmode == F_NONE)
		return 0;
	switch (e) {
	case ENOMEM:
		return 1;
	case ENOSPC:
		/* tmpfs: shmem_get_inode() failing is reported as ENOSPC */
		return fmode == F_EIO || fstype_tmpfs;
	case EIO: case EROFS: case EUCLEAN: case EBADMSG:
	/* what a stale directory block read back after a failed write can say */
	case ENOENT: case EEXIST: case ENOTEMPTY: case ENOTDIR: case EISDIR:
		return fmode == F_EIO;
	}
	return 0;
}

/* An error the model did not predict: fault, or failure. */
void unexpected(int e, const char *what)
{
	count_err(e);
	if (injected_errno(e)) {
		me->injected++;
		logop("injected %s: %s", what, strerror(e));
		return;
	}
	me->unexpected++;
	contra("%s: unexpected error %s", what, strerror(e));
}

int err_of(int ret)
{
	return ret < 0 ? errno : 0;
}

/* ---- names and contents ---- */

void owned_name(char *buf, size_t len, int w, int k)
{
	snprintf(buf, len, "w%d_%d", w, k);
}

/* Which name of the universe NAME is: 'o' owned, 'x' shared, 'm' missing. */
int classify(const char *name, int *w, int *k)
{
	char c;

	if (sscanf(name, "w%d_%d%c", w, k, &c) == 2 && *w >= 0 &&
	    *w < nworkers && *k >= 0 && *k < NSLOT)
		return 'o';
	if (sscanf(name, "x%d%c", k, &c) == 1 && *k >= 0 && *k < NSHARED)
		return 'x';
	if (sscanf(name, "m%d%c", k, &c) == 1 && *k >= 0 && *k < NMISS)
		return 'm';
	if (allow_nfs_names && !strncmp(name, ".nfs", 4))
		return 'n';
	return 0;
}

int mode_type(mode_t m)
{
	if (S_ISREG(m))
		return T_FILE;
	if (S_ISDIR(m))
		return T_DIR;
	if (S_ISLNK(m))
		return T_SYMLINK;
	if (S_ISFIFO(m))
		return T_FIFO;
	return T_UNKNOWN;
}

int dtype_type(unsigned char d)
{
	switch (d) {
	case DT_REG: return T_FILE;
	case DT_DIR: return T_DIR;
	case DT_LNK: return T_SYMLINK;
	case DT_FIFO: return T_FIFO;
	case DT_UNKNOWN: return T_NONE;
	}
	return T_UNKNOWN;
}

/* Read a regular file: 0 and BUF, or an errno. */
int read_at(int dir, const char *name, char *buf, size_t len)
{
	int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW);
	ssize_t n;
	int e;

	if (fd < 0)
		return errno;
	n = read(fd, buf, len - 1);
	e = n < 0 ? errno : 0;
	close(fd);
	buf[n < 0 ? 0 : n] = 0;
	return e;
}

/* A well-formed file content: "O wI kK gG\n" or "S wI gG\n". */
int well_formed(const char *s)
{
	int a, b, c;
	char nl;

	if (sscanf(s, "O w%d k%d g%d%c", &a, &b, &c, &nl) == 4 && nl == '\n')
		return strlen(s) == (size_t)snprintf(NULL, 0, "O w%d k%d g%d\n", a, b, c);
	if (sscanf(s, "S w%d g%d%c", &a, &c, &nl) == 3 && nl == '\n')
		return strlen(s) == (size_t)snprintf(NULL, 0, "S w%d g%d\n", a, c);
	return 0;
}


static int cmd_run(void)
{
	pid_t pids[MAXW + 1], rpid = 0;
	long ops = 0, contras = 0, unexp = 0, inj = 0, lost = 0, errs[MAXERR] = { 0 };
	long opc[OP_MAX] = { 0 };
	int i, k, e, status, bad_exit = 0;

	tap_plan(nworkers + 7);
	setup_tree();
	{
		struct statfs sfs;

		fstype_tmpfs = !fstatfs(rootfd, &sfs) && sfs.f_type == TMPFS_MAGIC;
	}
	tap_ok(1, "setup %s: %d workers x %ld operations, seed %llu, faults %s", root,
	       nworkers, nops, seed, fmode == F_SLAB ? "failslab" :
	       fmode == F_EIO ? "fail_make_request" : "none");
	neg_before = nr_negative();
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		tap_bail(errno, "mmap");
	fflush(stdout);
	if (remount_target) {
		rpid = fork();
		if (rpid < 0)
			tap_bail(errno, "fork");
		if (!rpid)
			remounter();
	}
	for (i = 0; i < nworkers; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			tap_bail(errno, "fork");
		if (!pids[i])
			worker(i);
	}
	for (i = 0; i < nworkers; i++) {
		if (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			bad_exit |= 1 << i;
	}
	sh->stop = 1;
	if (rpid)
		waitpid(rpid, &status, 0);
	if (fault_off) {
		/* no more injected faults for the checks */
		int fd = open(fault_off, O_WRONLY);

		if (fd < 0 || write(fd, "0", 1) != 1)
			tap_diag("cannot write 0 to %s: %s", fault_off, strerror(errno));
		if (fd >= 0)
			close(fd);
		sync();
	}

	for (i = 0; i < nworkers; i++) {
		struct wstat *w = &sh->w[i];
		long werr = 0;

		for (e = 1; e < MAXERR; e++) {
			errs[e] += w->err[e];
			werr += w->err[e];
		}
		errs[0] += w->err[0];
		for (k = 0; k < OP_MAX; k++)
			opc[k] += w->opcount[k];
		ops += w->ops;
		contras += w->contra;
		unexp += w->unexpected;
		inj += w->injected;
		lost += w->content_lost;
		tap_ok(!(bad_exit & (1 << i)) && w->done && !w->contra && w->ops == nops,
		       "worker %d: %ld/%ld operations, %ld contradictions, %ld errors "
		       "(%ld injected)%s", i, w->ops, nops, w->contra, werr, w->injected,
		       fmode == F_EIO ? ", inconsistencies after I/O errors below" : "");
		if (fmode == F_EIO)
			tap_diag("worker %d: %ld inconsistencies after I/O errors (not judged), "
				 "%ld file contents lost", i, w->eio_incons, w->content_lost);
		lenient_total += w->eio_incons;
		for (k = 0; k < w->contra && k < MAXCONTRA; k++)
			tap_diag("worker %d: %s", i, w->contra_msg[k]);
	}

	if (!remount_target) {
		tap_skip("no remount target", "negdentry= switched by remount during the run");
	} else {
		long n = sh->remounts[0] + sh->remounts[1] + sh->remounts[2], ne = 0;
		char seen[64] = "-";
		int shown;

		for (e = 0; e < MAXERR; e++)
			ne += sh->remount_err[e];
		/* what the declared kernel must show for the last value (ndt.h) */
		shown = sh->last_policy >= 0 &&
			shows_policy(remount_target, sh->last_policy, seen, sizeof(seen));
		tap_ok(fmode != F_NONE ? n + ne > 0 : n > 0 && !ne && shown,
		       "negdentry= switched %ld times by remount of %s (all %ld, lookup %ld, "
		       "none %ld; %ld failed), last %s, /proc/mounts shows %s", n,
		       remount_target, sh->remounts[0], sh->remounts[1], sh->remounts[2],
		       ne, sh->last_policy >= 0 ? policy_names[sh->last_policy] : "-", seen);
		for (e = 1; e < MAXERR; e++)
			if (sh->remount_err[e])
				tap_diag("remount errors %s: %ld", strerror(e), sh->remount_err[e]);
		tap_metric("remounts", n);
	}

	/* the tree as it is now */
	scan_tree();
	report("readdir and stat agree on every name in every directory");

	for (i = 0; i < nworkers; i++) {
		for (k = 0; k < NSLOT; k++) {
			struct slot *s = &sh->w[i].slot[k];
			char name[32];
			struct entry *en;
			int j;

			owned_name(name, sizeof(name), i, k);
			for (j = 0; j < NDIRS; j++) {
				en = find_ent(j, name);
				if (s->type == T_NONE || s->type == T_UNKNOWN || j != s->dir) {
					if (en)
						cfail("d%d/%s exists (%s), model says %s in d%d", j, name,
						      tname[en->type], tname[s->type], s->dir);
					continue;
				}
				if (!en) {
					cfail("d%d/%s missing, model says %s", j, name, tname[s->type]);
					continue;
				}
				if (en->type != s->type)
					cfail("d%d/%s is a %s, model says %s", j, name,
					      tname[en->type], tname[s->type]);
				else if (s->type == T_FILE && en->ino != s->ino)
					cfail("d%d/%s has inode %lu, model says %lu", j, name,
					      (unsigned long)en->ino, (unsigned long)s->ino);
				else if (s->content_ok && en->content_ok && strcmp(s->tag, en->tag) &&
					 !(fmode == F_EIO && s->type == T_FILE))
					cfail("d%d/%s holds \"%.40s\", model says \"%.40s\"", j, name,
					      en->tag, s->tag);
			}
		}
	}
	report("owned names match the model built from the operation log");

	if (nfs) {
		tap_skip("NFS client: link counts are checked on the server's filesystem",
			 "link counts equal names, same inode same contents");
		check_fail = nfirst = 0;
	} else {
		check_links();
		report("link counts equal names, same inode same contents");
	}

	/* deleted or never-created names: scan_tree checked stat of all of them */
	{
		int visible = 0;

		for (i = 0; i < nent; i++)
			if (ent[i].name[0] == 'm')
				visible++;
		tap_ok(!visible, "no never-created name visible (stat and readdir of %d "
		       "names in %d directories)", nworkers * NSLOT + NSHARED + NMISS, NDIRS);
	}
	{
		long all = 0;

		for (e = 1; e < MAXERR; e++)
			all += errs[e];
		tap_ok(!unexp, "errors all explained: %ld returned (%ld by races, %ld "
		       "injected), %ld unexpected", all, all - inj, inj, unexp);
		for (e = 1; e < MAXERR; e++)
			if (errs[e])
				tap_diag("errno %s: %ld", strerror(e), errs[e]);
		tap_metric("ops", ops);
		tap_metric("errors", all);
		tap_metric("errors_injected", inj);
		if (fmode == F_EIO) {
			tap_metric("contents_lost", lost);
			tap_metric("eio_inconsistencies", lenient_total);
		}
	}
	for (k = 0; k < OP_MAX; k++)
		tap_diag("op %s: %ld", opname[k], opc[k]);
	if (nfs_leftovers)
		tap_diag("%d .nfs silly-renamed names left", nfs_leftovers);
	tap_metric("entries", nent);
	tap_metric("nr_negative_delta", nr_negative() - neg_before);
	if (manifest)
		write_manifest();
	(void)contras;
	return tap_exit();
}

static int cmd_verify(void)
{
	char line[256], name[64], tag[TAGLEN];
	int dir, type, group, n = 0, bad_groups = 0, w;
	struct entry *en;
	FILE *f;
	static struct { int dir, type, group; char name[32], tag[TAGLEN]; } m[MAXENT];

	tap_plan(5);
	f = manifest ? fopen(manifest, "r") : NULL;
	if (!f)
		tap_bail(errno, "open manifest %s", manifest ? manifest : "(none)");
	if (!fgets(line, sizeof(line), f) ||
	    sscanf(line, "ndstress-manifest workers %d nfs %d", &nworkers, &w) != 2)
		tap_bail(0, "%s is not a manifest", manifest);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%d %63s %d %d %47s", &dir, name, &type, &group, tag) != 5 ||
		    n >= MAXENT)
			tap_bail(0, "bad manifest line: %s", line);
		m[n].dir = dir;
		m[n].type = type;
		m[n].group = group;
		snprintf(m[n].name, sizeof(m[n].name), "%.31s", name);
		for (char *p = tag; *p; p++)
			if (*p == '_')
				*p = ' ';
		snprintf(m[n].tag, sizeof(m[n].tag), "%s", tag);
		n++;
	}
	fclose(f);
	snprintf(root, sizeof(root), "%s/%s", mnt, tree);
	open_dirs();
	tap_ok(1, "manifest %s: %d names in %s", manifest, n, root);

	allow_nfs_names = w;
	scan_tree();
	report("readdir and stat agree on every name in every directory");
	for (int a = 0; a < n; a++) {
		en = find_ent(m[a].dir, m[a].name);
		if (!en) {
			cfail("d%d/%s (%s) is gone", m[a].dir, m[a].name, tname[m[a].type]);
			continue;
		}
		if (en->type != m[a].type) {
			cfail("d%d/%s is a %s, was a %s", m[a].dir, m[a].name,
			      tname[en->type], tname[m[a].type]);
			continue;
		}
		if (en->type == T_FILE || en->type == T_SYMLINK) {
			char now[TAGLEN];
			size_t l;

			snprintf(now, sizeof(now), "%s", en->content_ok ? en->tag : "?");
			l = strlen(now);
			if (l && now[l - 1] == '\n')
				now[l - 1] = 0;
			if (!*now)
				strcpy(now, "-");
			if (strcmp(m[a].tag, "?") && strcmp(now, m[a].tag))
				cfail("d%d/%s holds \"%s\", held \"%s\"", m[a].dir, m[a].name,
				      now, m[a].tag);
		}
		/* same group before <=> same inode now */
		for (int b = 0; b < a; b++) {
			struct entry *eb;

			if (m[a].type != T_FILE || m[b].type != T_FILE)
				continue;
			eb = find_ent(m[b].dir, m[b].name);
			if (eb && (m[a].group == m[b].group) != (eb->ino == en->ino))
				bad_groups++;
		}
	}
	report("every name of the manifest is there, same type and contents");
	if (bad_groups)
		cfail("%d pairs of names changed hard-link relation", bad_groups);
	if (!nfs)
		check_links();
	report("hard links as before, link counts equal names");
	for (int a = 0; a < nent; a++) {
		int found = 0;

		for (int b = 0; b < n && !found; b++)
			found = m[b].dir == ent[a].dir && !strcmp(m[b].name, ent[a].name);
		if (!found)
			cfail("d%d/%s (%s) is not in the manifest", ent[a].dir, ent[a].name,
			      tname[ent[a].type]);
	}
	report("no other name visible (stat and readdir of the whole universe)");
	return tap_exit();
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ndstress run|verify MNT [-t TREE] [-p WORKERS] [-n OPS] [-s SEED]\n"
		"       [-r REMOUNT_MNT] [-f none|slab|eio] [-E FAULT_FILE] [-M MANIFEST]\n"
		"       [-l LOGDIR] [-N]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *cmd;
	int c;

	if (argc < 3)
		usage();
	cmd = argv[1];
	mnt = argv[2];
	optind = 3;
	while ((c = getopt(argc, argv, "t:p:n:s:r:f:M:l:NE:")) != -1) {
		switch (c) {
		case 't': tree = optarg; break;
		case 'p': nworkers = atoi(optarg); break;
		case 'n': nops = atol(optarg); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'r': remount_target = optarg; break;
		case 'f':
			fmode = !strcmp(optarg, "slab") ? F_SLAB :
				!strcmp(optarg, "eio") ? F_EIO : F_NONE;
			break;
		case 'M': manifest = optarg; break;
		case 'l': logdir = optarg; break;
		case 'N': nfs = 1; break;
		case 'E': fault_off = optarg; break;
		default: usage();
		}
	}
	if (nworkers < 1 || nworkers > MAXW)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	allow_nfs_names = nfs;
	if (!strcmp(cmd, "run"))
		return cmd_run();
	if (!strcmp(cmd, "verify"))
		return cmd_verify();
	usage();
	return 2;
}
