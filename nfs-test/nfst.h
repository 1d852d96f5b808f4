/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the NFS loopback tests: paths, clocks, bounded waits and
 * small file operations that report errno instead of dying.
 */
#ifndef NFST_H
#define NFST_H

#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "../guest/tap.h"

#define PATH_LEN 1024

/* snprintf into a PATH_LEN buffer; a path that does not fit is a bug. */
static inline __attribute__((format(printf, 2, 3)))
char *pathf(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_LEN, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= PATH_LEN)
		tap_bail(0, "path too long: %s", buf);
	return buf;
}

/* Seconds on the monotonic clock. */
static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* 0 if @path exists (stat follows no NFS magic here), else the errno. */
static inline int stat_err(const char *path, struct stat *st)
{
	struct stat tmp;

	return stat(path, st ? st : &tmp) ? errno : 0;
}

/*
 * Wait until the wall clock has left the second of @path's ctime.
 *
 * Without i_version (ext2; ext4 6.1 without the iversion option; tmpfs 6.1)
 * nfsd derives the NFSv4 change attribute from ctime and NFSv3 clients use
 * ctime/mtime directly.  ext2, and ext4 with 128-byte inodes as mke2fs makes
 * them for these small images, keep whole seconds only, so two changes of a
 * directory or file within one second are indistinguishable to every NFS
 * client: that is NFS, not the kernel under test.  A test that changes
 * something behind a client's back first waits here, at most ~1 s.
 */
static inline void wait_ctime_second(const char *const *paths, int n)
{
	struct timespec ts;
	time_t newest = 0;
	struct stat st;
	double end = now() + 3;
	int i;

	for (i = 0; i < n; i++) {
		if (stat(paths[i], &st))
			tap_bail(errno, "stat %s", paths[i]);
		if (st.st_ctim.tv_sec > newest)
			newest = st.st_ctim.tv_sec;
		if (st.st_mtim.tv_sec > newest)
			newest = st.st_mtim.tv_sec;
	}
	for (;;) {
		clock_gettime(CLOCK_REALTIME, &ts);
		if (ts.tv_sec > newest || now() > end)
			return;
		sleep_ms(20);
	}
}

/* Write @data to @path with open @flags; returns 0 or an errno. */
static inline int write_file(const char *path, int flags, const char *data)
{
	size_t len = strlen(data);
	int fd, err = 0;

	fd = open(path, O_WRONLY | flags, 0644);
	if (fd < 0)
		return errno;
	if (write(fd, data, len) != (ssize_t)len)
		err = errno ? errno : EIO;
	if (close(fd) && !err)
		err = errno;
	return err;
}

/* Read up to @len - 1 bytes of @path, opened with @flags, into @buf. */
static inline int read_file_flags(const char *path, int flags, char *buf,
				  size_t len)
{
	ssize_t n;
	int fd, err = 0;

	buf[0] = '\0';
	fd = open(path, flags);
	if (fd < 0)
		return errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		err = errno;
	else
		buf[n] = '\0';
	close(fd);
	return err;
}

/* Read up to @len - 1 bytes of @path into @buf; returns 0 or an errno. */
static inline int read_file(const char *path, char *buf, size_t len)
{
	return read_file_flags(path, O_RDONLY, buf, len);
}

/* Whether @path's content is exactly @want. */
static inline int has_content(const char *path, const char *want)
{
	char buf[256];

	return !read_file(path, buf, sizeof(buf)) && !strcmp(buf, want);
}

/*
 * Scan directory @dir with a fresh opendir: calls @fn for every entry
 * other than . and ..; returns the number of entries or -errno.
 */
static inline int scan_dir(const char *dir, void (*fn)(const char *, void *),
			   void *arg)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fn)
			fn(de->d_name, arg);
		n++;
	}
	closedir(d);
	return n;
}

static inline const char *errname(int err)
{
	return err ? strerror(err) : "success";
}

#endif
