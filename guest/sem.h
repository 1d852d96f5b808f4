/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the semantics suite (negfail, semantics, policy, concur):
 * what the variant is, unprivileged children, tree removal, filling a
 * filesystem for ENOSPC.
 */
#ifndef NDT_SEM_H
#define NDT_SEM_H

#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ndt.h"

/* The unprivileged user of the EACCES and EDQUOT cases. */
#define SEM_UID 65534
#define SEM_GID 65534

/* Mount options of @mnt as /proc/mounts shows them ("" if not mounted). */
static inline void mount_opts(const char *mnt, char *opts, size_t len)
{
	char t[64];

	if (!mount_info(mnt, t, sizeof(t), opts, len))
		opts[0] = '\0';
}

/* The mounted device of @mnt (/proc/mounts' first field). */
static inline int mount_source(const char *mnt, char *src, size_t len)
{
	char line[4096], s[1024], m[1024];
	FILE *f = fopen("/proc/self/mounts", "r");
	int found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%1023s %1023s", s, m) == 2 && !strcmp(m, mnt)) {
			snprintf(src, len, "%s", s);
			found = 1;
		}
	fclose(f);
	return found;
}

/* Whether @dir has the casefold flag (chattr +F). */
static inline int is_casefolded(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY), flags = 0;

	if (fd < 0)
		return 0;
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags))
		flags = 0;
	close(fd);
	return !!(flags & FS_CASEFOLD_FL);
}

/* Whether the ext2/3/4 superblock of the device mounted at @mnt has an
 * incompat feature in @mask (read from the block device). */
static inline int ext_has_incompat(const char *mnt, unsigned int mask)
{
	unsigned char sb[1024];
	char src[1024];
	int fd, ok;

	if (is_tmpfs(mnt) || !mount_source(mnt, src, sizeof(src)))
		return 0;
	fd = open(src, O_RDONLY);
	if (fd < 0)
		return 0;
	ok = pread(fd, sb, sizeof(sb), 1024) == (ssize_t)sizeof(sb);
	close(fd);
	if (!ok || sb[0x38] != 0x53 || sb[0x39] != 0xef)
		return 0;
	/* s_feature_incompat at 0x60, little endian */
	return !!((sb[0x60] | sb[0x61] << 8 | sb[0x62] << 16 |
		   (unsigned int)sb[0x63] << 24) & mask);
}

#define EXT4_FEATURE_INCOMPAT_ENCRYPT	0x10000
#define EXT4_FEATURE_INCOMPAT_CASEFOLD	0x20000

/*
 * Run @fn(@arg) in a child that dropped to SEM_UID/SEM_GID; returns what
 * @fn returns (an errno, 0 for success), or -1 if the child failed.
 */
static inline int as_user(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		tap_bail(errno, "fork");
	if (!pid) {
		if (setgroups(0, NULL) || setresgid(SEM_GID, SEM_GID, SEM_GID) ||
		    setresuid(SEM_UID, SEM_UID, SEM_UID))
			_exit(255);
		_exit(fn(arg) & 0xff);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) == 255)
		return -1;
	return WEXITSTATUS(status);
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* rm -rf @path; 0 or an errno. */
static inline int rm_tree(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : errno;
	return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) ? errno : 0;
}

/* Create an empty file; 0 or an errno. */
static inline int touch(const char *path)
{
	int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* 1 if @path exists (lstat), 0 if ENOENT, -errno otherwise. */
static inline int exists(const char *path)
{
	struct stat st;

	if (!lstat(path, &st))
		return 1;
	return errno == ENOENT ? 0 : -errno;
}

/* Write @s as the whole content of a new or existing file. */
static inline int put(const char *path, const char *s)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	ssize_t n;

	if (fd < 0)
		return errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : EIO;
}

/* Whether the file at @path holds exactly @s. */
static inline int holds(const char *path, const char *s)
{
	char buf[256];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return 0;
	buf[n] = '\0';
	return !strcmp(buf, s);
}

/* Names in @dir other than . and .. (-1 on error). */
static inline int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* Whether readdir of @dir returns exactly the name @name (byte for byte). */
static inline int dir_lists(const char *dir, const char *name)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (!strcmp(e->d_name, name))
			found = 1;
	closedir(d);
	return found;
}

/*
 * Fill the filesystem of @dir with the file @dir/FILLER until no block is
 * left (ENOSPC), by fallocate where the filesystem has it and by writing
 * otherwise.  Returns 0 when full, or an errno.
 */
static inline int fill_blocks(const char *dir)
{
	static char buf[1 << 20];
	char path[1024];
	off_t off = 0, chunk;
	int fd, err = 0;
	struct statvfs sv;

	snprintf(path, sizeof(path), "%s/FILLER", dir);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	if (fd < 0)
		return errno;
	if (fstatvfs(fd, &sv)) {
		err = errno;
		goto out;
	}
	/* fallocate in halving chunks down to one block */
	for (chunk = (off_t)sv.f_bavail * sv.f_frsize * 2; chunk >= (off_t)sv.f_bsize;) {
		if (!fallocate(fd, 0, off, chunk)) {
			off += chunk;
			continue;
		}
		if (errno == EOPNOTSUPP)
			break;
		if (errno != ENOSPC) {
			err = errno;
			goto out;
		}
		chunk /= 2;
	}
	memset(buf, 'x', sizeof(buf));
	/* then write (ext2 has no fallocate), in halving sizes */
	if (lseek(fd, 0, SEEK_END) < 0) {
		err = errno;
		goto out;
	}
	for (chunk = sizeof(buf); chunk >= 512;) {
		ssize_t n = write(fd, buf, chunk);

		if (n == chunk)
			continue;
		if (n < 0 && errno != ENOSPC) {
			err = errno;
			goto out;
		}
		chunk /= 2;
	}
	if (fsync(fd))
		err = errno == ENOSPC ? 0 : errno;
out:
	close(fd);
	return err;
}

static inline void unfill_blocks(const char *dir)
{
	char path[1024];
	int fd;

	snprintf(path, sizeof(path), "%s/FILLER", dir);
	unlink(path);
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd >= 0) {
		syncfs(fd);
		close(fd);
	}
}

#endif
