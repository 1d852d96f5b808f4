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
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../guest/ndt.h"

#define NDIRS 4
#define NSLOT 12
#define NSHARED 8
#define NMISS 4
#define MAXW 16
#define MAXERR 134
#define MAXCONTRA 16
#define TAGLEN 48

enum ftype { T_NONE, T_FILE, T_DIR, T_SYMLINK, T_FIFO, T_UNKNOWN };
static const char *const tname[] = { "none", "file", "dir", "symlink", "fifo", "unknown" };

enum fmode { F_NONE, F_SLAB, F_EIO };

struct slot {
	int dir;		/* -1: nowhere */
	int type;
	int content_ok;		/* tag is known */
	ino_t ino;
	char tag[TAGLEN];	/* file contents or symlink target */
};

struct wstat {
	long ops, contra, unexpected, injected, content_lost, eio_incons;
	long err[MAXERR];
	long opcount[32];
	char contra_msg[MAXCONTRA][200];
	struct slot slot[NSLOT];
	int done;
};

struct shared {
	volatile int stop;
	long remounts[3], remount_err[MAXERR];
	int last_policy;
	struct wstat w[MAXW];
};

static struct shared *sh;
static struct wstat *me;
static int wid, nworkers = 4, nfs, allow_nfs_names, no_exchange, no_noreplace, fstype_tmpfs;
static long nops = 2000;
static unsigned long long seed = 1;
static enum fmode fmode;
static const char *mnt, *tree = "stress", *remount_target, *manifest, *logdir, *fault_off;
static char root[4096];
static int rootfd, dfd[NDIRS];
static FILE *wlog;
static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int rn(int n)
{
	return (int)(rnd() % (uint64_t)n);
}

static void logop(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logop(const char *fmt, ...)
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

static void contra(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void contra(const char *fmt, ...)
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

static void count_err(int e)
{
	me->err[e < MAXERR ? e : 0]++;
}

/* Errors fault injection may cause (and, on NFS, ESTALE). */
static int injected_errno(int e)
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
static void unexpected(int e, const char *what)
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

static int err_of(int ret)
{
	return ret < 0 ? errno : 0;
}

/* ---- names and contents ---- */

static void owned_name(char *buf, size_t len, int w, int k)
{
	snprintf(buf, len, "w%d_%d", w, k);
}

/* Which name of the universe NAME is: 'o' owned, 'x' shared, 'm' missing. */
static int classify(const char *name, int *w, int *k)
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

static int mode_type(mode_t m)
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

static int dtype_type(unsigned char d)
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
static int read_at(int dir, const char *name, char *buf, size_t len)
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
static int well_formed(const char *s)
{
	int a, b, c;
	char nl;

	if (sscanf(s, "O w%d k%d g%d%c", &a, &b, &c, &nl) == 4 && nl == '\n')
		return strlen(s) == (size_t)snprintf(NULL, 0, "O w%d k%d g%d\n", a, b, c);
	if (sscanf(s, "S w%d g%d%c", &a, &c, &nl) == 3 && nl == '\n')
		return strlen(s) == (size_t)snprintf(NULL, 0, "S w%d g%d\n", a, c);
	return 0;
}

/* ---- owned names ---- */

static struct slot *S(int k)
{
	return &me->slot[k];
}

static int nlinks_of(ino_t ino)
{
	int k, n = 0;

	for (k = 0; k < NSLOT; k++)
		if (S(k)->type == T_FILE && S(k)->ino == ino)
			n++;
	return n;
}

/*
 * Whether a file with NLINK links agrees with the model of inode INO: its
 * known names, plus at most one for each slot a fault left unknown (which
 * may be another name of INO).
 */
static int nlinks_agree(unsigned long nlink, ino_t ino)
{
	int k, unknown = 0, known = nlinks_of(ino);

	for (k = 0; k < NSLOT; k++)
		if (S(k)->type == T_UNKNOWN)
			unknown++;
	return nlink >= (unsigned long)known && nlink <= (unsigned long)(known + unknown);
}

/*
 * Re-learn slot K from the filesystem after an operation on it failed in
 * a way the model cannot predict (fault injection).
 */
static void resync(int k)
{
	char name[32], buf[TAGLEN + 16];
	struct stat st;
	int j, e, found = -1, tries;

	owned_name(name, sizeof(name), wid, k);
	for (j = 0; j < NDIRS; j++) {
		for (tries = 0; tries < 5; tries++) {
			e = err_of(fstatat(dfd[j], name, &st, AT_SYMLINK_NOFOLLOW));
			if (!e || e == ENOENT || !injected_errno(e))
				break;
			count_err(e);
			me->injected++;
		}
		if (e == ENOENT)
			continue;
		if (e) {
			if (!injected_errno(e))
				contra("resync %s in d%d: %s", name, j, strerror(e));
			S(k)->type = T_UNKNOWN;
			S(k)->dir = -1;
			logop("resync %s: unknown (%s)", name, strerror(e));
			return;
		}
		if (found >= 0)
			contra("%s is in d%d and d%d", name, found, j);
		found = j;
		S(k)->dir = j;
		S(k)->type = mode_type(st.st_mode);
		S(k)->ino = st.st_ino;
		S(k)->content_ok = 0;
		if (S(k)->type == T_FILE) {
			if (!read_at(dfd[j], name, buf, sizeof(buf)) && well_formed(buf) &&
			    strlen(buf) < TAGLEN) {
				strcpy(S(k)->tag, buf);
				S(k)->content_ok = 1;
			}
		} else if (S(k)->type == T_SYMLINK) {
			ssize_t n = readlinkat(dfd[j], name, buf, sizeof(buf) - 1);

			if (n > 0 && n < TAGLEN) {
				buf[n] = 0;
				strcpy(S(k)->tag, buf);
				S(k)->content_ok = 1;
			}
		}
	}
	if (found < 0) {
		S(k)->type = T_NONE;
		S(k)->dir = -1;
	}
	logop("resync %s: %s in d%d", name, tname[S(k)->type], S(k)->dir);
}

/* Check slot K against the filesystem (stat, and contents). */
static void check_slot(int k, int via_dotdot)
{
	char name[32], path[64], buf[TAGLEN + 16];
	struct slot *s = S(k);
	struct stat st;
	int j, e;

	owned_name(name, sizeof(name), wid, k);
	if (s->type == T_UNKNOWN) {
		resync(k);
		return;
	}
	j = s->dir >= 0 ? s->dir : rn(NDIRS);
	if (via_dotdot) {
		snprintf(path, sizeof(path), "d%d/../d%d/%s", rn(NDIRS), j, name);
		e = err_of(fstatat(rootfd, path, &st, AT_SYMLINK_NOFOLLOW));
	} else {
		e = err_of(fstatat(dfd[j], name, &st, AT_SYMLINK_NOFOLLOW));
	}
	logop("stat d%d/%s%s = %s", j, name, via_dotdot ? " (..)" : "", strerror(e));
	if (s->type == T_NONE) {
		if (e == ENOENT)
			return;
		if (!e) {
			contra("removed name d%d/%s visible (%s)", j, name,
			       tname[mode_type(st.st_mode)]);
			resync(k);
		} else {
			unexpected(e, "stat of a removed name");
		}
		return;
	}
	if (e == ENOENT) {
		contra("d%d/%s (%s) missing", j, name, tname[s->type]);
		resync(k);
		return;
	}
	if (e) {
		unexpected(e, "stat");
		resync(k);
		return;
	}
	if (mode_type(st.st_mode) != s->type) {
		contra("d%d/%s is a %s, expected a %s", j, name,
		       tname[mode_type(st.st_mode)], tname[s->type]);
		resync(k);
		return;
	}
	if (s->type == T_FILE && st.st_ino != s->ino) {
		contra("d%d/%s has inode %lu, expected %lu", j, name,
		       (unsigned long)st.st_ino, (unsigned long)s->ino);
		resync(k);
		return;
	}
	if (s->type == T_FILE && !nfs && !nlinks_agree(st.st_nlink, s->ino))
		contra("d%d/%s has %lu links, expected %d", j, name,
		       (unsigned long)st.st_nlink, nlinks_of(s->ino));
	if (!s->content_ok)
		return;
	if (s->type == T_FILE) {
		e = read_at(dfd[j], name, buf, sizeof(buf));
		if (e) {
			unexpected(e, "read");
			return;
		}
	} else if (s->type == T_SYMLINK) {
		ssize_t n = readlinkat(dfd[j], name, buf, sizeof(buf) - 1);

		if (n < 0) {
			unexpected(errno, "readlink");
			return;
		}
		buf[n] = 0;
	} else {
		return;
	}
	if (strcmp(buf, s->tag)) {
		if (fmode == F_EIO && (!*buf || !well_formed(buf))) {
			/* data lost to an injected write error: count it */
			me->content_lost++;
			s->content_ok = 0;
			logop("content of d%d/%s lost: \"%.40s\"", j, name, buf);
			return;
		}
		contra("d%d/%s holds \"%.40s\", expected \"%.40s\"", j, name, buf, s->tag);
		resync(k);
	}
}

/* A new file's contents. */
static void new_tag(int k, char *tag)
{
	snprintf(tag, TAGLEN, "O w%d k%d g%ld\n", wid, k, me->ops);
}

static int write_tag(int fd, const char *tag)
{
	ssize_t n = write(fd, tag, strlen(tag));

	if (n < 0)
		return errno;
	return n == (ssize_t)strlen(tag) ? 0 : EIO;
}

enum { OP_CREATE, OP_MKDIR, OP_SYMLINK, OP_MKNOD, OP_LINK, OP_UNLINK,
	OP_RMDIR, OP_RENAME_DIR, OP_RENAME_OVER, OP_EXCHANGE, OP_NOREPLACE,
	OP_REWRITE, OP_OPEN_UNLINK, OP_STAT, OP_STAT_DOTDOT, OP_OPEN_MISSING,
	OP_SH_CREATE, OP_SH_UNLINK, OP_SH_MKDIR, OP_SH_RMDIR, OP_SH_RENAME,
	OP_SH_LINK, OP_SH_STAT, OP_SH_READDIR, OP_SH_MISS, OP_SH_DOTDOT,
	OP_MAX };
static const char *const opname[] = { "create", "mkdir", "symlink", "mknod",
	"link", "unlink", "rmdir", "rename-dir", "rename-over", "exchange",
	"noreplace", "rewrite", "open-unlink", "stat", "stat-dotdot",
	"open-missing", "sh-create", "sh-unlink", "sh-mkdir", "sh-rmdir",
	"sh-rename", "sh-link", "sh-stat", "sh-readdir", "sh-miss",
	"sh-dotdot" };

/* A random slot other than K with type in MASK (bit per type), or -1. */
static int pick_slot(int k, unsigned mask)
{
	int i, start = rn(NSLOT);

	for (i = 0; i < NSLOT; i++) {
		int c = (start + i) % NSLOT;

		if (c != k && (mask & (1u << S(c)->type)))
			return c;
	}
	return -1;
}

#define M(t) (1u << (t))
#define NONDIR (M(T_FILE) | M(T_SYMLINK) | M(T_FIFO))

/*
 * The operations on owned names, one function each, called by owned_op()
 * for slot K (whose name is in no unknown state) and the random directory
 * J it drew.  Each draws its further random numbers in the order the
 * replayed runs rely on: keep it.
 */

/* create+write of a missing name */
static void op_create(int k, int j)
{
	char name[32], tag[TAGLEN];
	struct slot *s = S(k);
	struct stat st;
	int e, fd;

	owned_name(name, sizeof(name), wid, k);
	new_tag(k, tag);
	fd = openat(dfd[j], name, O_CREAT | O_EXCL | O_WRONLY, 0644);
	e = fd < 0 ? errno : 0;
	logop("create d%d/%s = %s", j, name, strerror(e));
	if (e) {
		if (e == EEXIST)
			contra("create d%d/%s: EEXIST for a removed name", j, name);
		else
			unexpected(e, "create");
		resync(k);
		return;
	}
	e = write_tag(fd, tag);
	if (!e && fstat(fd, &st))
		e = errno;
	close(fd);
	s->dir = j;
	s->type = T_FILE;
	s->ino = st.st_ino;
	strcpy(s->tag, tag);
	s->content_ok = 1;
	if (e) {
		unexpected(e, "write of a new file");
		resync(k);
	}
}

/* mkdir, symlink or mknod (OP) of a missing name */
static void make_node(int op, int k, int j)
{
	char name[32], tag[TAGLEN];
	struct slot *s = S(k);
	int e;

	owned_name(name, sizeof(name), wid, k);
	new_tag(k, tag);
	tag[strlen(tag) - 1] = 0;	/* symlink target: no newline */
	if (op == OP_MKDIR)
		e = err_of(mkdirat(dfd[j], name, 0755));
	else if (op == OP_SYMLINK)
		e = err_of(symlinkat(tag, dfd[j], name));
	else
		e = err_of(mknodat(dfd[j], name, S_IFIFO | 0644, 0));
	logop("%s d%d/%s = %s", opname[op], j, name, strerror(e));
	if (e) {
		if (e == EEXIST)
			contra("%s d%d/%s: EEXIST for a removed name", opname[op], j, name);
		else
			unexpected(e, opname[op]);
		resync(k);
		return;
	}
	s->dir = j;
	s->type = op == OP_MKDIR ? T_DIR : op == OP_SYMLINK ? T_SYMLINK : T_FIFO;
	strcpy(s->tag, tag);
	s->content_ok = op == OP_SYMLINK;
}

static void op_mkdir(int k, int j)
{
	make_node(OP_MKDIR, k, j);
}

static void op_symlink(int k, int j)
{
	make_node(OP_SYMLINK, k, j);
}

static void op_mknod(int k, int j)
{
	make_node(OP_MKNOD, k, j);
}

/* link an existing file to a missing slot (k is one of them) */
static void op_link(int k, int j)
{
	char name[32], name2[32];
	struct slot *s = S(k), *s2;
	int k2, e;

	owned_name(name, sizeof(name), wid, k);
	if (s->type == T_FILE) {
		k2 = pick_slot(k, M(T_NONE));
		if (k2 < 0)
			return;
	} else {
		k2 = k;
		k = pick_slot(k2, M(T_FILE));
		if (k < 0)
			return;
		s = S(k);
		owned_name(name, sizeof(name), wid, k);
	}
	s2 = S(k2);
	owned_name(name2, sizeof(name2), wid, k2);
	e = err_of(linkat(dfd[s->dir], name, dfd[j], name2, 0));
	logop("link d%d/%s d%d/%s = %s", s->dir, name, j, name2, strerror(e));
	if (e) {
		if (e == EEXIST)
			contra("link to d%d/%s: EEXIST for a removed name", j, name2);
		else if (e == ENOENT)
			contra("link from d%d/%s: ENOENT", s->dir, name);
		else
			unexpected(e, "link");
		resync(k);
		resync(k2);
		return;
	}
	*s2 = *s;
	s2->dir = j;
}

/* unlink or rmdir (OP) of slot K; the name must be gone at once */
static void remove_name(int op, int k)
{
	char name[32];
	struct slot *s = S(k);
	struct stat st;
	int j, e;

	owned_name(name, sizeof(name), wid, k);
	if (op == OP_UNLINK)
		e = err_of(unlinkat(dfd[s->dir], name, 0));
	else
		e = err_of(unlinkat(dfd[s->dir], name, AT_REMOVEDIR));
	logop("%s d%d/%s = %s", opname[op], s->dir, name, strerror(e));
	if (e) {
		if (e == ENOENT)
			contra("%s d%d/%s: ENOENT", opname[op], s->dir, name);
		else
			unexpected(e, opname[op]);
		resync(k);
		return;
	}
	j = s->dir;
	s->type = T_NONE;
	s->dir = -1;
	/* the name must be gone at once */
	e = err_of(fstatat(dfd[j], name, &st, AT_SYMLINK_NOFOLLOW));
	if (!e)
		contra("d%d/%s visible right after %s", j, name, opname[op]);
	else if (e != ENOENT)
		unexpected(e, "stat after unlink");
}

static void op_unlink(int k)
{
	remove_name(OP_UNLINK, k);
}

static void op_rmdir(int k)
{
	remove_name(OP_RMDIR, k);
}

/* rename to the same name in another directory */
static void op_rename_dir(int k, int j)
{
	char name[32];
	struct slot *s = S(k);
	int e;

	owned_name(name, sizeof(name), wid, k);
	if (j == s->dir)
		j = (j + 1) % NDIRS;
	e = err_of(renameat(dfd[s->dir], name, dfd[j], name));
	logop("rename d%d/%s d%d/%s = %s", s->dir, name, j, name, strerror(e));
	if (e) {
		if (e == ENOENT || e == EEXIST || e == ENOTEMPTY)
			contra("rename d%d/%s to d%d: %s", s->dir, name, j, strerror(e));
		else
			unexpected(e, "rename");
		resync(k);
		return;
	}
	s->dir = j;
}

/*
 * The target of a rename of slot K onto another slot: one of the types in
 * MASK, in directory J if it is missing.  Its index, with its name in
 * NAME2, or -1.
 */
static int rename_target(int k, unsigned mask, int j, char *name2, size_t len)
{
	int k2 = pick_slot(k, mask);

	if (k2 < 0)
		return -1;
	owned_name(name2, len, wid, k2);
	if (S(k2)->type == T_NONE)
		S(k2)->dir = j;
	return k2;
}

/* rename over another slot: missing, or compatible */
static void op_rename_over(int k, int j)
{
	char name[32], name2[32];
	struct slot *s = S(k), *s2;
	int k2, e;

	owned_name(name, sizeof(name), wid, k);
	k2 = rename_target(k, s->type == T_DIR ? M(T_NONE) | M(T_DIR) :
			   M(T_NONE) | NONDIR, j, name2, sizeof(name2));
	if (k2 < 0)
		return;
	s2 = S(k2);
	e = err_of(renameat(dfd[s->dir], name, dfd[s2->dir], name2));
	logop("rename d%d/%s d%d/%s = %s", s->dir, name, s2->dir, name2, strerror(e));
	if (e) {
		if (e == ENOENT || e == ENOTEMPTY || e == EISDIR || e == ENOTDIR)
			contra("rename d%d/%s over d%d/%s: %s", s->dir, name,
			       s2->dir, name2, strerror(e));
		else
			unexpected(e, "rename over");
		resync(k);
		resync(k2);
		return;
	}
	if (s->type == T_FILE && s2->type == T_FILE && s->ino == s2->ino)
		return;	/* two links to one inode: rename does nothing */
	j = s2->dir;
	*s2 = *s;
	s2->dir = j;
	s->type = T_NONE;
	s->dir = -1;
}

/* RENAME_NOREPLACE onto another existing slot: must say EEXIST */
static void op_noreplace(int k, int j)
{
	char name[32], name2[32];
	struct slot *s = S(k), *s2;
	int k2, e;

	owned_name(name, sizeof(name), wid, k);
	k2 = rename_target(k, ~M(T_UNKNOWN) & ~M(T_NONE), j, name2, sizeof(name2));
	if (k2 < 0)
		return;
	s2 = S(k2);
	if (no_noreplace)
		return;
	e = err_of(renameat2(dfd[s->dir], name, dfd[s2->dir], name2,
			     RENAME_NOREPLACE));
	logop("rename-noreplace d%d/%s d%d/%s = %s", s->dir, name,
	      s2->dir, name2, strerror(e));
	if (e == EINVAL) {
		no_noreplace = 1;
		return;
	}
	if (e != EEXIST) {
		if (!e)
			contra("RENAME_NOREPLACE replaced d%d/%s", s2->dir, name2);
		else
			unexpected(e, "rename noreplace");
		resync(k);
		resync(k2);
	}
}

/* RENAME_EXCHANGE with another existing slot */
static void op_exchange(int k)
{
	char name[32], name2[32];
	struct slot *s = S(k), *s2, tmp;
	int k2, j, e;

	if (no_exchange)
		return;
	owned_name(name, sizeof(name), wid, k);
	k2 = pick_slot(k, ~M(T_UNKNOWN) & ~M(T_NONE));
	if (k2 < 0)
		return;
	s2 = S(k2);
	owned_name(name2, sizeof(name2), wid, k2);
	e = err_of(renameat2(dfd[s->dir], name, dfd[s2->dir], name2, RENAME_EXCHANGE));
	logop("exchange d%d/%s d%d/%s = %s", s->dir, name, s2->dir, name2, strerror(e));
	if (e == EINVAL) {
		no_exchange = 1;
		return;
	}
	if (e) {
		if (e == ENOENT)
			contra("exchange d%d/%s d%d/%s: ENOENT", s->dir, name,
			       s2->dir, name2);
		else
			unexpected(e, "exchange");
		resync(k);
		resync(k2);
		return;
	}
	tmp = *s;
	*s = *s2;
	s->dir = tmp.dir;
	j = s2->dir;
	*s2 = tmp;
	s2->dir = j;
}

/* new contents for a file: every link to its inode shows them */
static void op_rewrite(int k)
{
	char name[32], tag[TAGLEN];
	struct slot *s = S(k);
	int k2, e, fd;

	owned_name(name, sizeof(name), wid, k);
	new_tag(k, tag);
	fd = openat(dfd[s->dir], name, O_WRONLY | O_TRUNC | O_NOFOLLOW);
	e = fd < 0 ? errno : 0;
	if (!e) {
		e = write_tag(fd, tag);
		close(fd);
	}
	logop("rewrite d%d/%s = %s", s->dir, name, strerror(e));
	for (k2 = 0; k2 < NSLOT; k2++)
		if (S(k2)->type == T_FILE && S(k2)->ino == s->ino) {
			strcpy(S(k2)->tag, tag);
			S(k2)->content_ok = !e;
		}
	if (e) {
		if (e == ENOENT)
			contra("rewrite d%d/%s: ENOENT", s->dir, name);
		else
			unexpected(e, "rewrite");
		resync(k);
	}
}

/* unlink a file that is open: the dentry is unhashed, not negative */
static void op_open_unlink(int k)
{
	char name[32], buf[TAGLEN + 16];
	struct slot *s = S(k);
	struct stat st;
	int j, e, fd;

	owned_name(name, sizeof(name), wid, k);
	fd = openat(dfd[s->dir], name, O_RDONLY | O_NOFOLLOW);
	if (fd < 0) {
		e = errno;
		if (e == ENOENT)
			contra("open d%d/%s: ENOENT", s->dir, name);
		else
			unexpected(e, "open");
		resync(k);
		return;
	}
	e = err_of(unlinkat(dfd[s->dir], name, 0));
	logop("open-unlink d%d/%s = %s", s->dir, name, strerror(e));
	if (e) {
		close(fd);
		unexpected(e, "unlink of an open file");
		resync(k);
		return;
	}
	j = s->dir;
	s->type = T_NONE;
	s->dir = -1;
	if (!fstatat(dfd[j], name, &st, AT_SYMLINK_NOFOLLOW))
		contra("d%d/%s visible after unlink while open", j, name);
	if (fstat(fd, &st)) {
		unexpected(errno, "fstat of an unlinked file");
	} else if (!nfs && !nlinks_agree(st.st_nlink, s->ino)) {
		contra("unlinked open d%d/%s has %lu links, expected %d", j,
		       name, (unsigned long)st.st_nlink, nlinks_of(s->ino));
	}
	if (s->content_ok) {
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

		if (n < 0) {
			unexpected(errno, "read of an unlinked file");
		} else {
			buf[n] = 0;
			if (strcmp(buf, s->tag) &&
			    !(fmode == F_EIO && !well_formed(buf)))
				contra("unlinked open d%d/%s holds \"%.40s\", expected \"%.40s\"",
				       j, name, buf, s->tag);
		}
	}
	close(fd);
}

static void op_stat(int k)
{
	check_slot(k, 0);
}

static void op_stat_dotdot(int k)
{
	check_slot(k, 1);
}

/* open of a missing name: must say ENOENT */
static void op_open_missing(int k, int j)
{
	char name[32];
	int e, fd;

	owned_name(name, sizeof(name), wid, k);
	e = err_of(fd = openat(dfd[j], name, O_RDONLY));
	logop("open d%d/%s = %s", j, name, strerror(e));
	if (!e) {
		close(fd);
		contra("open of removed d%d/%s succeeded", j, name);
		resync(k);
	} else if (e != ENOENT) {
		unexpected(e, "open of a removed name");
	}
}

/* One operation on a random owned name, chosen to fit its state. */
static void owned_op(void)
{
	int k = rn(NSLOT), j, r = rn(100), op;
	struct slot *s = S(k);

	if (s->type == T_UNKNOWN) {
		resync(k);
		return;
	}
	/* choose an operation that fits the slot's state */
	switch (s->type) {
	case T_NONE:
		op = r < 30 ? OP_CREATE : r < 42 ? OP_MKDIR : r < 50 ? OP_SYMLINK :
		     r < 55 ? OP_MKNOD : r < 70 ? OP_LINK : r < 85 ? OP_STAT :
		     r < 90 ? OP_STAT_DOTDOT : OP_OPEN_MISSING;
		break;
	case T_FILE:
		op = r < 22 ? OP_UNLINK : r < 32 ? OP_RENAME_DIR : r < 42 ? OP_RENAME_OVER :
		     r < 47 ? OP_EXCHANGE : r < 50 ? OP_NOREPLACE : r < 58 ? OP_REWRITE :
		     r < 63 ? OP_OPEN_UNLINK : r < 73 ? OP_LINK : r < 93 ? OP_STAT :
		     OP_STAT_DOTDOT;
		break;
	case T_DIR:
		op = r < 40 ? OP_RMDIR : r < 55 ? OP_RENAME_DIR : r < 62 ? OP_RENAME_OVER :
		     r < 67 ? OP_EXCHANGE : r < 90 ? OP_STAT : OP_STAT_DOTDOT;
		break;
	default:
		op = r < 40 ? OP_UNLINK : r < 55 ? OP_RENAME_DIR : r < 65 ? OP_RENAME_OVER :
		     r < 70 ? OP_EXCHANGE : OP_STAT;
		break;
	}
	me->opcount[op]++;
	j = rn(NDIRS);	/* drawn for every operation, used or not */
	switch (op) {
	case OP_CREATE:		op_create(k, j); break;
	case OP_MKDIR:		op_mkdir(k, j); break;
	case OP_SYMLINK:	op_symlink(k, j); break;
	case OP_MKNOD:		op_mknod(k, j); break;
	case OP_LINK:		op_link(k, j); break;
	case OP_UNLINK:		op_unlink(k); break;
	case OP_RMDIR:		op_rmdir(k); break;
	case OP_RENAME_DIR:	op_rename_dir(k, j); break;
	case OP_RENAME_OVER:	op_rename_over(k, j); break;
	case OP_EXCHANGE:	op_exchange(k); break;
	case OP_NOREPLACE:	op_noreplace(k, j); break;
	case OP_REWRITE:	op_rewrite(k); break;
	case OP_OPEN_UNLINK:	op_open_unlink(k); break;
	case OP_STAT:		op_stat(k); break;
	case OP_STAT_DOTDOT:	op_stat_dotdot(k); break;
	case OP_OPEN_MISSING:	op_open_missing(k, j); break;
	}
}

/* ---- shared names ---- */

static int shared_allowed(int e, const int *ok)
{
	for (; *ok; ok++)
		if (e == *ok)
			return 1;
	return 0;
}

static void sh_result(int e, const int *ok, const char *what)
{
	if (!e || shared_allowed(e, ok)) {
		if (e)
			count_err(e);
		return;
	}
	unexpected(e, what);
}

static void check_names_in(int j)
{
	int fd = openat(dfd[j], ".", O_RDONLY | O_DIRECTORY);
	struct dirent *de;
	DIR *d;
	int w, k;

	if (fd < 0) {
		unexpected(errno, "open dir");
		return;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		unexpected(errno, "fdopendir");
		return;
	}
	while ((errno = 0, de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		switch (classify(de->d_name, &w, &k)) {
		case 'o': case 'x': case 'n':
			break;
		case 'm':
			contra("never-created d%d/%s in readdir", j, de->d_name);
			break;
		default:
			contra("foreign name \"%.60s\" in readdir of d%d", de->d_name, j);
		}
	}
	if (errno)
		unexpected(errno, "readdir");
	closedir(d);
}

static void shared_op(void)
{
	static const int ok_create[] = { EEXIST, 0 }, ok_unlink[] = { ENOENT, EISDIR, 0 },
		ok_mkdir[] = { EEXIST, 0 }, ok_rmdir[] = { ENOENT, ENOTDIR, 0 },
		ok_rename[] = { ENOENT, EISDIR, ENOTDIR, 0 },
		ok_link[] = { ENOENT, EEXIST, EPERM, 0 }, ok_stat[] = { ENOENT, 0 };
	int op = OP_SH_CREATE + rn(OP_MAX - OP_SH_CREATE);
	int k = rn(NSHARED), k2 = rn(NSHARED), j = rn(NDIRS), j2 = rn(NDIRS), e = 0, fd;
	char name[16], name2[16], tag[TAGLEN], buf[TAGLEN + 16], path[64];
	struct stat st;

	snprintf(name, sizeof(name), "x%d", k);
	snprintf(name2, sizeof(name2), "x%d", k2);
	me->opcount[op]++;
	switch (op) {
	case OP_SH_CREATE:
		snprintf(tag, sizeof(tag), "S w%d g%ld\n", wid, me->ops);
		fd = openat(dfd[j], name, O_CREAT | O_EXCL | O_WRONLY, 0644);
		e = fd < 0 ? errno : 0;
		if (!e) {
			e = write_tag(fd, tag);
			close(fd);
		}
		sh_result(e, ok_create, "shared create");
		break;
	case OP_SH_UNLINK:
		e = err_of(unlinkat(dfd[j], name, 0));
		sh_result(e, ok_unlink, "shared unlink");
		break;
	case OP_SH_MKDIR:
		e = err_of(mkdirat(dfd[j], name, 0755));
		sh_result(e, ok_mkdir, "shared mkdir");
		break;
	case OP_SH_RMDIR:
		e = err_of(unlinkat(dfd[j], name, AT_REMOVEDIR));
		sh_result(e, ok_rmdir, "shared rmdir");
		break;
	case OP_SH_RENAME:
		e = err_of(renameat(dfd[j], name, dfd[j2], name2));
		sh_result(e, ok_rename, "shared rename");
		break;
	case OP_SH_LINK:
		e = err_of(linkat(dfd[j], name, dfd[j2], name2, 0));
		sh_result(e, ok_link, "shared link");
		break;
	case OP_SH_STAT:
		fd = openat(dfd[j], name, O_RDONLY | O_NOFOLLOW);
		e = fd < 0 ? errno : 0;
		if (!e) {
			if (fstat(fd, &st)) {
				unexpected(errno, "fstat");
			} else if (S_ISREG(st.st_mode)) {
				ssize_t n = read(fd, buf, sizeof(buf) - 1);

				if (n < 0) {
					unexpected(errno, "shared read");
				} else {
					buf[n] = 0;
					/* a racing create may not have written yet */
					if (n && !well_formed(buf) &&
					    !(fmode == F_EIO))
						contra("shared d%d/%s holds \"%.40s\"", j, name, buf);
				}
			}
			close(fd);
		}
		sh_result(e, ok_stat, "shared open");
		break;
	case OP_SH_READDIR:
		check_names_in(j);
		break;
	case OP_SH_MISS:
		snprintf(name, sizeof(name), "m%d", rn(NMISS));
		e = err_of(fstatat(dfd[j], name, &st, AT_SYMLINK_NOFOLLOW));
		if (!e)
			contra("never-created d%d/%s exists", j, name);
		else if (e != ENOENT)
			unexpected(e, "stat of a never-created name");
		break;
	case OP_SH_DOTDOT:
		snprintf(path, sizeof(path), "d%d/../d%d/%s", j2, j, name);
		e = err_of(fstatat(rootfd, path, &st, AT_SYMLINK_NOFOLLOW));
		sh_result(e, ok_stat, "shared stat via ..");
		break;
	}
	logop("%s d%d/%s d%d/%s = %s", opname[op], j, name, j2, name2, strerror(e));
}

static void open_dirs(void)
{
	char d[8];
	int j;

	rootfd = open(root, O_RDONLY | O_DIRECTORY);
	if (rootfd < 0)
		tap_bail(errno, "open %s", root);
	for (j = 0; j < NDIRS; j++) {
		snprintf(d, sizeof(d), "d%d", j);
		dfd[j] = openat(rootfd, d, O_RDONLY | O_DIRECTORY);
		if (dfd[j] < 0)
			tap_bail(errno, "open %s/%s", root, d);
	}
}

static void worker(int i)
{
	char path[4096];
	int k;

	wid = i;
	me = &sh->w[i];
	rng = seed * 0x9e3779b97f4a7c15ULL + (uint64_t)i * 0xbf58476d1ce4e5b9ULL + 1;
	for (k = 0; k < NSLOT; k++)
		me->slot[k].dir = -1;
	if (logdir) {
		snprintf(path, sizeof(path), "%s/w%d.log", logdir, i);
		wlog = fopen(path, "w");
	}
	if (fmode != F_NONE) {
		int fd = open("/proc/self/make-it-fail", O_WRONLY);

		if (fd < 0 || write(fd, "1", 1) != 1)
			contra("cannot mark for fault injection: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	for (me->ops = 0; me->ops < nops; me->ops++) {
		if (rn(100) < 25)
			shared_op();
		else
			owned_op();
		if (me->contra > 200)
			break;
	}
	if (fmode != F_NONE) {
		int fd = open("/proc/self/make-it-fail", O_WRONLY);

		if (fd >= 0) {
			if (write(fd, "0", 1) != 1)
				fd = fd + 0;
			close(fd);
		}
	}
	/* slots left unknown by faults: learn them now, without faults */
	for (k = 0; k < NSLOT; k++)
		if (me->slot[k].type == T_UNKNOWN)
			resync(k);
	me->done = 1;
	if (wlog)
		fclose(wlog);
	exit(0);
}

static void remounter(void)
{
	struct timespec ts;

	rng = seed ^ 0x5bd1e995;
	sh->last_policy = -1;
	while (!sh->stop) {
		int p = rn(3), e;

		ts.tv_sec = 0;
		ts.tv_nsec = (2 + rn(30)) * 1000000L;
		nanosleep(&ts, NULL);
		e = set_policy(remount_target, p);
		if (e) {
			sh->remount_err[e < MAXERR ? e : 0]++;
		} else {
			sh->remounts[p]++;
			sh->last_policy = p;
		}
	}
	exit(0);
}

/* ---- the checks after the run, and verify ---- */

struct entry {
	char name[32];
	int dir, type, group, content_ok;
	ino_t ino;
	nlink_t nlink;
	char tag[TAGLEN];
};

#define MAXENT (NDIRS * (MAXW * NSLOT + NSHARED + NMISS + 64))
static struct entry ent[MAXENT];
static int nent, nfs_leftovers;

static int check_fail;
static char first_fail[8][200];
static int nfirst;

static void cfail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void cfail(const char *fmt, ...)
{
	va_list ap;

	if (nfirst < 8) {
		va_start(ap, fmt);
		vsnprintf(first_fail[nfirst++], sizeof(first_fail[0]), fmt, ap);
		va_end(ap);
	}
	check_fail++;
}

static long lenient_total;

static void report(const char *what);

static void report(const char *what)
{
	int i;

	if (fmode == F_EIO) {
		/* see contra(): after I/O errors, reported, not judged */
		tap_ok(1, "%s (%d inconsistencies after I/O errors, not judged)", what,
		       check_fail);
		lenient_total += check_fail;
	} else {
		tap_ok(!check_fail, "%s (%d problems)", what, check_fail);
	}
	for (i = 0; i < nfirst; i++)
		tap_diag("%s", first_fail[i]);
	check_fail = nfirst = 0;
}

/*
 * Scan the tree: every directory's entries (readdir), then lstat of every
 * name of the universe in every directory; they must agree.  Fills ent[].
 */
static void scan_tree(void)
{
	static char seen[NDIRS][MAXW * NSLOT + NSHARED + NMISS];
	int j, w, k, c, idx, e;
	struct dirent *de;
	struct stat st;
	char name[32];
	DIR *d;

	memset(seen, 0, sizeof(seen));
	nent = 0;
	nfs_leftovers = 0;
	for (j = 0; j < NDIRS; j++) {
		int fd = openat(dfd[j], ".", O_RDONLY | O_DIRECTORY);

		d = fd < 0 ? NULL : fdopendir(fd);
		if (!d) {
			cfail("cannot read d%d: %s", j, strerror(errno));
			continue;
		}
		while ((errno = 0, de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			c = classify(de->d_name, &w, &k);
			if (c == 'n') {
				nfs_leftovers++;
				continue;
			}
			if (!c || c == 'm') {
				cfail("d%d: unexpected name \"%.60s\" in readdir", j, de->d_name);
				continue;
			}
			idx = c == 'o' ? w * NSLOT + k : MAXW * NSLOT + k;
			if (seen[j][idx]++)
				cfail("d%d/%s listed twice by readdir", j, de->d_name);
			e = err_of(fstatat(dfd[j], de->d_name, &st, AT_SYMLINK_NOFOLLOW));
			if (e) {
				cfail("d%d/%s in readdir but stat says %s", j, de->d_name,
				      strerror(e));
				continue;
			}
			if (de->d_ino != st.st_ino)
				cfail("d%d/%s: readdir inode %lu, stat inode %lu", j, de->d_name,
				      (unsigned long)de->d_ino, (unsigned long)st.st_ino);
			if (dtype_type(de->d_type) != T_NONE &&
			    dtype_type(de->d_type) != mode_type(st.st_mode))
				cfail("d%d/%s: readdir says %s, stat says %s", j, de->d_name,
				      tname[dtype_type(de->d_type)], tname[mode_type(st.st_mode)]);
			if (nent >= MAXENT)
				tap_bail(0, "too many entries");
			struct entry *en = &ent[nent++];

			snprintf(en->name, sizeof(en->name), "%.31s", de->d_name);
			en->dir = j;
			en->type = mode_type(st.st_mode);
			en->ino = st.st_ino;
			en->nlink = st.st_nlink;
			en->content_ok = 0;
			en->tag[0] = 0;
			if (en->type == T_FILE) {
				char buf[TAGLEN + 16];

				e = read_at(dfd[j], en->name, buf, sizeof(buf));
				if (e)
					cfail("read d%d/%s: %s", j, en->name, strerror(e));
				else if (strlen(buf) >= TAGLEN || !well_formed(buf))
					cfail("d%d/%s holds \"%.40s\"", j, en->name, buf);
				else {
					strcpy(en->tag, buf);
					en->content_ok = 1;
				}
			} else if (en->type == T_SYMLINK) {
				ssize_t n = readlinkat(dfd[j], en->name, en->tag, TAGLEN - 1);

				if (n < 0)
					cfail("readlink d%d/%s: %s", j, en->name, strerror(errno));
				en->tag[n < 0 ? 0 : n] = 0;
				en->content_ok = n >= 0;
			}
		}
		if (errno)
			cfail("readdir d%d: %s", j, strerror(errno));
		closedir(d);
		/* every name readdir did not list must be absent for stat too */
		for (idx = 0; idx < MAXW * NSLOT + NSHARED + NMISS; idx++) {
			if (idx < MAXW * NSLOT) {
				if (idx / NSLOT >= nworkers)
					continue;
				owned_name(name, sizeof(name), idx / NSLOT, idx % NSLOT);
			} else if (idx < MAXW * NSLOT + NSHARED) {
				snprintf(name, sizeof(name), "x%d", idx - MAXW * NSLOT);
			} else {
				snprintf(name, sizeof(name), "m%d", idx - MAXW * NSLOT - NSHARED);
			}
			if (idx < MAXW * NSLOT + NSHARED && seen[j][idx])
				continue;
			e = err_of(fstatat(dfd[j], name, &st, AT_SYMLINK_NOFOLLOW));
			if (!e)
				cfail("d%d/%s: stat finds a %s that readdir does not list", j,
				      name, tname[mode_type(st.st_mode)]);
			else if (e != ENOENT)
				cfail("stat d%d/%s: %s", j, name, strerror(e));
		}
	}
	/* link groups: names with the same inode */
	for (int a = 0; a < nent; a++) {
		ent[a].group = a;
		for (int b = 0; b < a; b++)
			if (ent[b].ino == ent[a].ino && ent[a].type == T_FILE &&
			    ent[b].type == T_FILE) {
				ent[a].group = ent[b].group;
				break;
			}
	}
}

/* Link counts: each file's st_nlink is the number of its names; dirs 2+subdirs. */
static void check_links(void)
{
	struct stat st;
	char d[8];
	int a, b, n, j, sub[NDIRS] = { 0 };

	for (a = 0; a < nent; a++) {
		if (ent[a].type == T_DIR) {
			sub[ent[a].dir]++;
			if (ent[a].nlink != 2)
				cfail("empty dir d%d/%s has %lu links", ent[a].dir, ent[a].name,
				      (unsigned long)ent[a].nlink);
			continue;
		}
		if (ent[a].type != T_FILE)
			continue;
		for (n = 0, b = 0; b < nent; b++)
			n += ent[b].type == T_FILE && ent[b].group == ent[a].group;
		if ((int)ent[a].nlink != n)
			cfail("d%d/%s has %lu links but %d names", ent[a].dir, ent[a].name,
			      (unsigned long)ent[a].nlink, n);
		for (b = 0; b < nent; b++)
			if (ent[b].type == T_FILE && ent[b].group == ent[a].group &&
			    ent[a].content_ok && ent[b].content_ok &&
			    strcmp(ent[a].tag, ent[b].tag))
				cfail("d%d/%s and d%d/%s: same inode, different contents",
				      ent[a].dir, ent[a].name, ent[b].dir, ent[b].name);
	}
	for (j = 0; j < NDIRS; j++) {
		snprintf(d, sizeof(d), "d%d", j);
		if (fstatat(rootfd, d, &st, 0))
			cfail("stat %s: %s", d, strerror(errno));
		else if ((int)st.st_nlink != 2 + sub[j])
			cfail("%s has %lu links, %d subdirectories", d,
			      (unsigned long)st.st_nlink, sub[j]);
	}
}

static struct entry *find_ent(int dir, const char *name)
{
	for (int a = 0; a < nent; a++)
		if (ent[a].dir == dir && !strcmp(ent[a].name, name))
			return &ent[a];
	return NULL;
}

static void write_manifest(void)
{
	FILE *f = fopen(manifest, "w");
	int a;

	if (!f) {
		tap_diag("cannot write %s: %s", manifest, strerror(errno));
		return;
	}
	fprintf(f, "ndstress-manifest workers %d nfs %d\n", nworkers, nfs);
	for (a = 0; a < nent; a++) {
		char tag[TAGLEN];
		size_t l;

		snprintf(tag, sizeof(tag), "%s", ent[a].content_ok ? ent[a].tag : "?");
		l = strlen(tag);
		if (l && tag[l - 1] == '\n')
			tag[l - 1] = 0;
		if (!*tag)
			strcpy(tag, "-");
		for (char *p = tag; *p; p++)
			if (*p == ' ')
				*p = '_';
		fprintf(f, "%d %s %d %d %s\n", ent[a].dir, ent[a].name, ent[a].type,
			ent[a].group, tag);
	}
	fclose(f);
}

static long long neg_before;

static void setup_tree(void)
{
	char p[4200];
	int j;

	snprintf(root, sizeof(root), "%s/%s", mnt, tree);
	if (mkdir(root, 0755) && errno != EEXIST)
		tap_bail(errno, "mkdir %s", root);
	for (j = 0; j < NDIRS; j++) {
		snprintf(p, sizeof(p), "%s/d%d", root, j);
		if (mkdir(p, 0755) && errno != EEXIST)
			tap_bail(errno, "mkdir %s", p);
	}
	open_dirs();
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
