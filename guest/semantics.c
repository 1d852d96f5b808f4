// SPDX-License-Identifier: GPL-2.0
/*
 * semantics: names are found, not found, created, renamed and deleted
 * exactly as before, whatever negative dentries the policy keeps.
 *
 *   semantics MOUNTPOINT
 *
 * Every case works on names that were just removed, or whose negative
 * dentry was just cached, or both, and checks what the syscalls answer
 * and what the files hold.  The cases run under the policy the harness
 * declares for the mount and, on a series kernel, under each negdentry=
 * value (see policy_rounds() in ndt.h).  A case that cannot apply to the
 * variant SKIPs: no RENAME_EXCHANGE or O_TMPFILE where the filesystem has
 * none, no casefolded dir or encryption where the variant's FEATURES=
 * does not declare them (a declared one that is missing fails).
 */
#include "sem.h"
#include "fscrypt.h"
#include <linux/fs.h>
#include <sys/syscall.h>

#define PASS 1
#define FAIL 0
#define SKIP 2
static const char *skip_reason;

#define CHECK(cond)                                                          \
	do {                                                                 \
		errno = 0;                                                   \
		if (!(cond)) {                                               \
			tap_diag("%s:%d: %s is false (errno: %s)", __func__, \
				 __LINE__, #cond, strerror(errno));          \
			return FAIL;                                         \
		}                                                            \
	} while (0)

static const char *mnt;

/* DIR/NAME in one of a ring of buffers */
static const char *at(const char *dir, const char *name)
{
	static char ring[64][1024];
	static int next;
	char tmp[1024], *b = ring[next++ % 64];
	int n = snprintf(tmp, sizeof(tmp), "%s/%s", dir, name);

	if (n >= (int)sizeof(tmp))
		tap_bail(0, "path too long");
	memcpy(b, tmp, n + 1);
	return b;
}

static ino_t ino(const char *path)
{
	struct stat st;

	return lstat(path, &st) ? 0 : st.st_ino;
}

static nlink_t nlinks(const char *path)
{
	struct stat st;

	return lstat(path, &st) ? 0 : st.st_nlink;
}

static int rename2(const char *a, const char *b, unsigned int flags)
{
	return syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, flags);
}

static int create_after_unlink(const char *d)
{
	const char *a = at(d, "a");
	int i, fd;
	struct stat st;

	for (i = 0; i < 3; i++) {
		CHECK(!put(a, "one"));
		CHECK(!unlink(a));
		CHECK(exists(a) == 0);
		CHECK(exists(a) == 0);
		CHECK(unlink(a) && errno == ENOENT);
		fd = open(a, O_CREAT | O_EXCL | O_RDWR, 0644);
		CHECK(fd >= 0);
		CHECK(!fstat(fd, &st) && st.st_size == 0 && st.st_nlink == 1);
		CHECK(write(fd, "two", 3) == 3);
		close(fd);
		CHECK(holds(a, "two"));
		CHECK(!unlink(a));
	}
	return PASS;
}

static int unlink_open_fd(const char *d)
{
	const char *o = at(d, "o");
	char buf[16] = "";
	struct stat st;
	int fd = open(o, O_CREAT | O_EXCL | O_RDWR, 0644);

	CHECK(fd >= 0);
	CHECK(write(fd, "hello", 5) == 5);
	CHECK(!unlink(o));
	CHECK(exists(o) == 0);
	CHECK(!fstat(fd, &st) && st.st_nlink == 0);
	CHECK(pwrite(fd, "world", 5, 5) == 5);
	CHECK(!fsync(fd));
	CHECK(!put(o, "new"));
	CHECK(holds(o, "new"));
	CHECK(ino(o) != st.st_ino);
	CHECK(pread(fd, buf, 10, 0) == 10 && !memcmp(buf, "helloworld", 10));
	CHECK(!ftruncate(fd, 3) && !fstat(fd, &st) && st.st_size == 3);
	close(fd);
	CHECK(holds(o, "new"));
	CHECK(!unlink(o));
	return PASS;
}

static int hard_links(const char *d)
{
	const char *a = at(d, "a"), *b = at(d, "b");
	ino_t i;

	CHECK(!put(a, "L"));
	i = ino(a);
	CHECK(!link(a, b));
	CHECK(ino(b) == i && nlinks(a) == 2);
	CHECK(link(a, b) && errno == EEXIST);
	CHECK(!unlink(a));
	CHECK(exists(a) == 0 && holds(b, "L") && nlinks(b) == 1);
	CHECK(!link(b, a));
	CHECK(ino(a) == i && nlinks(b) == 2);
	CHECK(!unlink(b));
	CHECK(exists(b) == 0);
	CHECK(!link(a, b) && ino(b) == i);
	CHECK(!unlink(a) && !unlink(b));
	CHECK(exists(a) == 0 && exists(b) == 0);
	CHECK(link(a, b) && errno == ENOENT);
	return PASS;
}

static int rename_over(const char *d)
{
	const char *a = at(d, "a"), *b = at(d, "b");
	ino_t i;

	CHECK(!put(a, "A") && !put(b, "B"));
	i = ino(a);
	CHECK(!rename(a, b));
	CHECK(exists(a) == 0 && holds(b, "A") && ino(b) == i && nlinks(b) == 1);
	CHECK(rename(a, b) && errno == ENOENT);
	CHECK(!put(a, "A2"));
	CHECK(holds(a, "A2") && holds(b, "A"));
	CHECK(!unlink(a) && !unlink(b));
	return PASS;
}

static int rename_noreplace(const char *d)
{
	const char *a = at(d, "a"), *b = at(d, "b");

	CHECK(!put(a, "A") && !put(b, "B"));
	CHECK(rename2(a, b, RENAME_NOREPLACE) && errno == EEXIST);
	CHECK(holds(a, "A") && holds(b, "B"));
	CHECK(!unlink(b));
	CHECK(!rename2(a, b, RENAME_NOREPLACE));
	CHECK(exists(a) == 0 && holds(b, "A"));
	CHECK(!rename2(b, a, RENAME_NOREPLACE));
	CHECK(exists(b) == 0 && holds(a, "A"));
	CHECK(!unlink(a));
	return PASS;
}

static int rename_exchange(const char *d)
{
	const char *a = at(d, "a"), *b = at(d, "b"), *c = at(d, "c");

	CHECK(!put(a, "A") && !put(b, "B"));
	if (rename2(a, b, RENAME_EXCHANGE) && errno == EINVAL) {
		skip_reason = "no RENAME_EXCHANGE on this filesystem";
		unlink(a);
		unlink(b);
		return SKIP;
	}
	CHECK(holds(a, "B") && holds(b, "A"));
	CHECK(exists(c) == 0);
	CHECK(rename2(a, c, RENAME_EXCHANGE) && errno == ENOENT);
	CHECK(exists(c) == 0 && holds(a, "B"));
	CHECK(!unlink(b));
	CHECK(rename2(a, b, RENAME_EXCHANGE) && errno == ENOENT);
	CHECK(holds(a, "B") && exists(b) == 0);
	CHECK(!unlink(a));
	return PASS;
}

static int rename_into_removed(const char *d)
{
	const char *a = at(d, "a"), *x = at(d, "x"), *dd = at(d, "dd"),
		   *src = at(d, "src");
	ino_t i;

	CHECK(!put(x, "X") && exists(x) == 1);
	CHECK(!unlink(x));
	CHECK(exists(x) == 0 && exists(x) == 0);
	CHECK(!put(a, "A"));
	i = ino(a);
	CHECK(!rename(a, x));
	CHECK(holds(x, "A") && ino(x) == i && exists(a) == 0);
	CHECK(!mkdir(dd, 0755) && !rmdir(dd) && exists(dd) == 0);
	CHECK(!mkdir(src, 0755) && !put(at(src, "f"), "F"));
	CHECK(!rename(src, dd));
	CHECK(exists(src) == 0 && holds(at(dd, "f"), "F"));
	CHECK(!rename(x, a) && exists(x) == 0 && holds(a, "A"));
	CHECK(!unlink(a) && !unlink(at(dd, "f")) && !rmdir(dd));
	return PASS;
}

static int rmdir_mkdir(const char *d)
{
	const char *dd = at(d, "dd"), *f = at(dd, "f");
	int i;

	for (i = 0; i < 3; i++) {
		CHECK(!mkdir(dd, 0755));
		CHECK(count_entries(dd) == 0);
		CHECK(exists(f) == 0);
		CHECK(!put(f, "F"));
		CHECK(rmdir(dd) && errno == ENOTEMPTY);
		CHECK(!unlink(f));
		CHECK(!rmdir(dd));
		CHECK(exists(dd) == 0 && exists(f) == 0);
		CHECK(rmdir(dd) && errno == ENOENT);
		CHECK(put(f, "F") == ENOENT);
	}
	return PASS;
}

static int tmpfile_linkat(const char *d)
{
	const char *t = at(d, "t");
	char proc[64];
	int fd = open(d, O_TMPFILE | O_RDWR, 0600);

	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR)) {
		skip_reason = "no O_TMPFILE on this filesystem";
		return SKIP;
	}
	CHECK(fd >= 0);
	CHECK(write(fd, "T", 1) == 1);
	CHECK(!put(t, "old") && !unlink(t) && exists(t) == 0);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	CHECK(!linkat(AT_FDCWD, proc, AT_FDCWD, t, AT_SYMLINK_FOLLOW));
	CHECK(holds(t, "T") && nlinks(t) == 1);
	CHECK(linkat(AT_FDCWD, proc, AT_FDCWD, t, AT_SYMLINK_FOLLOW) && errno == EEXIST);
	close(fd);
	CHECK(!unlink(t) && exists(t) == 0);
	return PASS;
}

static int rmdir_cwd(const char *d)
{
	const char *c = at(d, "c");
	char buf[1024];
	struct stat st, st2;
	int ok;

	CHECK(!mkdir(c, 0755));
	CHECK(!chdir(c));
	CHECK(!put("f", "F") && !unlink("f"));
	CHECK(!rmdir(c));
	ok = !stat(".", &st) && st.st_nlink == 0 && exists("f") == 0 &&
	     put("g", "G") == ENOENT && mkdir("h", 0755) && errno == ENOENT &&
	     !getcwd(buf, sizeof(buf)) && errno == ENOENT &&
	     !mkdir(c, 0755) && !stat(c, &st2) && st2.st_ino != st.st_ino &&
	     exists("g") == 0;
	if (chdir(mnt))
		tap_bail(errno, "chdir %s", mnt);
	CHECK(ok);
	CHECK(!chdir(c) && !put("g", "G") && !chdir(mnt));
	CHECK(holds(at(c, "g"), "G"));
	CHECK(!unlink(at(c, "g")) && !rmdir(c));
	return PASS;
}

static int make_tree(const char *parent, int depth, int want)
{
	char name[16], dir[1024];
	int i;

	snprintf(dir, sizeof(dir), "%s", parent);

	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		if (want) {
			if (put(at(dir, name), name))
				return 0;
		} else if (exists(at(dir, name)) != 0) {
			return 0;
		}
		if (!depth)
			continue;
		snprintf(name, sizeof(name), "d%d", i);
		if (want && mkdir(at(dir, name), 0755))
			return 0;
		if (!want && exists(at(dir, name)) != 0)
			return 0;
		if (want && !make_tree(at(dir, name), depth - 1, want))
			return 0;
	}
	return 1;
}

static int check_tree(const char *parent, int depth)
{
	char name[16], dir[1024];
	int i;

	snprintf(dir, sizeof(dir), "%s", parent);

	if (count_entries(dir) != (depth ? 6 : 3))
		return 0;
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		if (!holds(at(dir, name), name))
			return 0;
		snprintf(name, sizeof(name), "d%d", i);
		if (depth && !check_tree(at(dir, name), depth - 1))
			return 0;
	}
	return 1;
}

static int trees(const char *d)
{
	char t[1024];
	int i;

	snprintf(t, sizeof(t), "%s", at(d, "tree"));

	for (i = 0; i < 2; i++) {
		CHECK(!mkdir(t, 0755));
		CHECK(make_tree(t, 3, 1));
		CHECK(check_tree(t, 3));
		CHECK(rmdir(t) && errno == ENOTEMPTY);
		CHECK(!rm_tree(t));
		CHECK(exists(t) == 0);
		CHECK(exists(at(t, "d0")) == 0);
		CHECK(!mkdir(t, 0755));
		/* nothing of the old tree shows through */
		CHECK(make_tree(t, 3, 0));
		CHECK(count_entries(t) == 0);
		CHECK(!rmdir(t));
	}
	return PASS;
}

static int symlinks(const char *d)
{
	const char *t = at(d, "t"), *s = at(d, "s"), *n = at(d, "n"),
		   *s2 = at(d, "s2");
	struct stat st;

	CHECK(!put(t, "T1") && !symlink("t", s));
	CHECK(holds(s, "T1"));
	CHECK(!unlink(t));
	CHECK(stat(s, &st) && errno == ENOENT);
	CHECK(!lstat(s, &st) && S_ISLNK(st.st_mode));
	CHECK(stat(s, &st) && errno == ENOENT);
	CHECK(!put(t, "T2"));
	CHECK(holds(s, "T2"));
	CHECK(!symlink("n", s2));
	CHECK(stat(s2, &st) && errno == ENOENT);
	CHECK(!put(s2, "N"));	/* creates the target through the link */
	CHECK(holds(n, "N") && holds(s2, "N"));
	CHECK(!unlink(s) && !symlink("t", s) && holds(s, "T2"));
	CHECK(!unlink(s) && !unlink(s2) && !unlink(t) && !unlink(n));
	CHECK(exists(s) == 0 && exists(t) == 0);
	return PASS;
}

/* A subdirectory of the variant's casefolded ci/ (it inherits +F). */
static const char *ci_dir(const char *tag, const char *what)
{
	static char sub[512];
	char ci[512];

	snprintf(ci, sizeof(ci), "%s/ci", mnt);
	if (!feature("casefold", is_casefolded(ci))) {
		skip_reason = NO_FEATURE("casefold");
		return NULL;
	}
	if (snprintf(sub, sizeof(sub), "%s/sem-%s-%s", ci, tag, what) >= (int)sizeof(sub))
		tap_bail(0, "path too long");
	if (mkdir(sub, 0755) || !is_casefolded(sub))
		tap_bail(errno, "mkdir %s (casefolded)", sub);
	return sub;
}

static int ci_names(const char *tag)
{
	const char *d = ci_dir(tag, "names");

	if (!d)
		return SKIP;
	CHECK(!put(at(d, "Foo.txt"), "F"));
	CHECK(holds(at(d, "foo.TXT"), "F"));
	CHECK(ino(at(d, "FOO.TXT")) == ino(at(d, "Foo.txt")));
	CHECK(touch(at(d, "FOO.TXT")) == EEXIST);
	CHECK(dir_lists(d, "Foo.txt") && count_entries(d) == 1);
	CHECK(!unlink(at(d, "fOo.txt")));
	CHECK(exists(at(d, "Foo.txt")) == 0 && exists(at(d, "foo.txt")) == 0 &&
	      exists(at(d, "FOO.TXT")) == 0);
	CHECK(unlink(at(d, "Foo.txt")) && errno == ENOENT);
	CHECK(!put(at(d, "FOO.txt"), "G"));
	/* the new entry has the new spelling, not the removed one's */
	CHECK(dir_lists(d, "FOO.txt") && !dir_lists(d, "Foo.txt"));
	CHECK(holds(at(d, "foo.txt"), "G") && holds(at(d, "Foo.TXT"), "G"));
	CHECK(!rename(at(d, "foo.txt"), at(d, "Bar.txt")));
	CHECK(exists(at(d, "FOO.TXT")) == 0 && holds(at(d, "bar.TXT"), "G"));
	CHECK(!link(at(d, "BAR.txt"), at(d, "Baz.txt")));
	CHECK(link(at(d, "bar.txt"), at(d, "BAZ.TXT")) && errno == EEXIST);
	CHECK(!unlink(at(d, "bar.txt")) && holds(at(d, "baz.txt"), "G"));
	CHECK(!unlink(at(d, "baz.TXT")) && count_entries(d) == 0);
	CHECK(!rmdir(d));
	return PASS;
}

static int ci_dirs(const char *tag)
{
	const char *d = ci_dir(tag, "dirs");

	if (!d)
		return SKIP;
	CHECK(!mkdir(at(d, "Dir"), 0755));
	CHECK(exists(at(d, "dIR")) == 1);
	CHECK(mkdir(at(d, "DIR"), 0755) && errno == EEXIST);
	CHECK(!rmdir(at(d, "DIR")));
	CHECK(exists(at(d, "dir")) == 0 && exists(at(d, "Dir")) == 0);
	CHECK(!mkdir(at(d, "diR"), 0755));
	CHECK(dir_lists(d, "diR") && !dir_lists(d, "Dir"));
	CHECK(!put(at(d, "DIR/x"), "X"));
	CHECK(holds(at(d, "dir/X"), "X"));	/* the subdir is casefolded too */
	CHECK(!unlink(at(d, "Dir/X")) && !rmdir(at(d, "dir")));
	CHECK(count_entries(d) == 0 && !rmdir(d));
	return PASS;
}

/* An encrypted directory whose key no keyring has: no-key mode. */
static int nokey_dir(const char *d)
{
	const char *e = at(d, "nokey");
	int r;

	if (!feature("encrypt", ext_has_incompat(mnt, EXT4_FEATURE_INCOMPAT_ENCRYPT))) {
		skip_reason = NO_FEATURE("encrypt");
		return SKIP;
	}
	CHECK(!mkdir(e, 0755));
	r = fscrypt_set_policy_v1_nokey(e);
	if (r)
		tap_diag("FS_IOC_SET_ENCRYPTION_POLICY v1: %s", strerror(r));
	CHECK(!r);
	CHECK(count_entries(e) == 0);
	CHECK(exists(at(e, "plain")) == 0 && exists(at(e, "plain")) == 0);
	CHECK(touch(at(e, "plain")) == ENOKEY);
	CHECK(mkdir(at(e, "plain"), 0755) && errno == ENOKEY);
	CHECK(symlink("x", at(e, "plain")) && errno == ENOKEY);
	CHECK(exists(at(e, "plain")) == 0 && count_entries(e) == 0);
	/* a well-formed no-key name (base64url of 24 bytes) is not there either */
	CHECK(exists(at(e, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")) == 0);
	CHECK(!rmdir(e) && exists(e) == 0);
	return PASS;
}

/* A v2 key: names before removal, no-key names without it, and after. */
static int key_cycle(const char *d)
{
	unsigned char id[FSCRYPT_KEY_IDENTIFIER_SIZE] = { 0 };
	const char *e = at(d, "keyed");
	char nokey[300] = "";
	unsigned int status = 0;
	struct dirent *de;
	int r, n = 0;
	DIR *dir;

	if (!feature("encrypt", ext_has_incompat(mnt, EXT4_FEATURE_INCOMPAT_ENCRYPT))) {
		skip_reason = NO_FEATURE("encrypt");
		return SKIP;
	}
	/* scripts/guest.config enables the algorithms: a failure is one */
	r = fscrypt_add_key(mnt, id);
	if (r) {
		tap_diag("FS_IOC_ADD_ENCRYPTION_KEY on %s: %s", mnt, strerror(r));
		return FAIL;
	}
	CHECK(!mkdir(e, 0755));
	CHECK(!fscrypt_set_policy_v2(e, id));
	CHECK(!put(at(e, "secret"), "S") && !mkdir(at(e, "sub"), 0755));
	CHECK(!put(at(e, "sub/x"), "X"));
	CHECK(!put(at(e, "gone"), "G") && !unlink(at(e, "gone")));
	CHECK(exists(at(e, "gone")) == 0 && exists(at(e, "never")) == 0);
	sync();
	CHECK(!fscrypt_remove_key(mnt, id, &status));
	if (status)
		tap_diag("key removal status 0x%x", status);
	/* without the key: only no-key names */
	CHECK(exists(at(e, "secret")) == 0 && exists(at(e, "gone")) == 0);
	dir = opendir(e);
	CHECK(dir);
	while ((de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		n++;
		if (de->d_type == DT_REG)
			snprintf(nokey, sizeof(nokey), "%s", de->d_name);
	}
	closedir(dir);
	CHECK(n == 2 && nokey[0]);
	CHECK(exists(at(e, nokey)) == 1 && exists(at(e, nokey)) == 1);
	CHECK(open(at(e, nokey), O_RDONLY) < 0 && errno == ENOKEY);
	CHECK(touch(at(e, "new")) == ENOKEY);
	/* the key back: plaintext names again, no-key names gone */
	CHECK(!fscrypt_add_key(mnt, id));
	CHECK(holds(at(e, "secret"), "S") && holds(at(e, "sub/x"), "X"));
	CHECK(exists(at(e, "gone")) == 0 && exists(at(e, "never")) == 0);
	CHECK(exists(at(e, nokey)) == 0);
	CHECK(!put(at(e, "gone"), "G2") && holds(at(e, "gone"), "G2"));
	CHECK(!rm_tree(e));
	fscrypt_remove_key(mnt, id, NULL);
	return PASS;
}

struct scase {
	const char *name;
	int (*fn)(const char *dir);
	int per_tag;	/* takes the round's tag instead of its dir */
};

static const struct scase cases[] = {
	{ "create after unlink", create_after_unlink, 0 },
	{ "unlink of an open file, I/O through the fd", unlink_open_fd, 0 },
	{ "hard links", hard_links, 0 },
	{ "rename over an existing target", rename_over, 0 },
	{ "RENAME_NOREPLACE", rename_noreplace, 0 },
	{ "RENAME_EXCHANGE", rename_exchange, 0 },
	{ "rename into a removed name", rename_into_removed, 0 },
	{ "rmdir then mkdir of the same name", rmdir_mkdir, 0 },
	{ "O_TMPFILE + linkat into a removed name", tmpfile_linkat, 0 },
	{ "directory removed while it is the cwd", rmdir_cwd, 0 },
	{ "mkdir/rmdir trees", trees, 0 },
	{ "symlinks to unlinked names", symlinks, 0 },
	{ "casefolded dir: created and deleted names by any case", (int (*)(const char *))ci_names, 1 },
	{ "casefolded dir: mkdir/rmdir by any case", (int (*)(const char *))ci_dirs, 1 },
	{ "encrypted dir without its key: no-key lookups and creates", nokey_dir, 0 },
	{ "encrypted dir: names before, without and after the key", key_cycle, 0 },
};
#define NCASES (int)(sizeof(cases) / sizeof(cases[0]))

static void round_under(enum policy p, const char *tag)
{
	char dir[512];
	int i, r;

	tap_diag("round %s: negdentry=%s", tag, policy_names[p]);
	snprintf(dir, sizeof(dir), "%s/sem-%s", mnt, tag);
	if (mkdir(dir, 0755))
		tap_bail(errno, "mkdir %s", dir);
	for (i = 0; i < NCASES; i++) {
		skip_reason = NULL;
		r = cases[i].fn(cases[i].per_tag ? tag : dir);
		if (r == SKIP)
			tap_skip(skip_reason, "%s: %s", tag, cases[i].name);
		else
			tap_ok(r == PASS, "%s: %s", tag, cases[i].name);
	}
	r = rm_tree(dir);
	if (r)
		tap_bail(r, "rm -r %s", dir);
}

int main(int argc, char **argv)
{
	mnt = test_args(argc, argv, NULL, NULL);
	if (chdir(mnt))
		tap_bail(errno, "chdir %s", mnt);
	tap_begin();
	policy_rounds(mnt, round_under);
	return tap_end();
}
