// SPDX-License-Identifier: GPL-2.0
/* ndstress: shared names, the workers and the remounter. */
#include "ndstress.h"

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

void open_dirs(void)
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

void worker(int i)
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

void remounter(void)
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
