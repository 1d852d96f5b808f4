// SPDX-License-Identifier: GPL-2.0
/* ndstress: owned names: each worker's own, checked against its model. */
#include "ndstress.h"

struct slot *S(int k)
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
void resync(int k)
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

int write_tag(int fd, const char *tag)
{
	ssize_t n = write(fd, tag, strlen(tag));

	if (n < 0)
		return errno;
	return n == (ssize_t)strlen(tag) ? 0 : EIO;
}

const char *const opname[] = { "create", "mkdir", "symlink", "mknod",
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
void owned_op(void)
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
