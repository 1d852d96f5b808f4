// SPDX-License-Identifier: GPL-2.0
/* ndstress: the checks after the run, the manifest and verify. */
#include "ndstress.h"

struct entry ent[MAXENT];
int nent, nfs_leftovers;

int check_fail;
static char first_fail[8][200];
int nfirst;

void cfail(const char *fmt, ...)
{
	va_list ap;

	if (nfirst < 8) {
		va_start(ap, fmt);
		vsnprintf(first_fail[nfirst++], sizeof(first_fail[0]), fmt, ap);
		va_end(ap);
	}
	check_fail++;
}

long lenient_total;


void report(const char *what)
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
void scan_tree(void)
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
void check_links(void)
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

struct entry *find_ent(int dir, const char *name)
{
	for (int a = 0; a < nent; a++)
		if (ent[a].dir == dir && !strcmp(ent[a].name, name))
			return &ent[a];
	return NULL;
}

void write_manifest(void)
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

long long neg_before;

void setup_tree(void)
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
