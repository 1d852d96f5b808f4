/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of ndstress share: ndstress.c (the commands and the
 * model's helpers), owned.c (owned names), shared.c (shared names, the
 * workers and the remounter) and check.c (the checks after the run and
 * the manifest).  ndstress.c's header says what the program does.
 */
#ifndef NDSTRESS_H
#define NDSTRESS_H
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

extern const char *const tname[];

enum { OP_CREATE, OP_MKDIR, OP_SYMLINK, OP_MKNOD, OP_LINK, OP_UNLINK,
	OP_RMDIR, OP_RENAME_DIR, OP_RENAME_OVER, OP_EXCHANGE, OP_NOREPLACE,
	OP_REWRITE, OP_OPEN_UNLINK, OP_STAT, OP_STAT_DOTDOT, OP_OPEN_MISSING,
	OP_SH_CREATE, OP_SH_UNLINK, OP_SH_MKDIR, OP_SH_RMDIR, OP_SH_RENAME,
	OP_SH_LINK, OP_SH_STAT, OP_SH_READDIR, OP_SH_MISS, OP_SH_DOTDOT,
	OP_MAX };
extern const char *const opname[];

#define M(t) (1u << (t))
#define NONDIR (M(T_FILE) | M(T_SYMLINK) | M(T_FIFO))

struct entry {
	char name[32];
	int dir, type, group, content_ok;
	ino_t ino;
	nlink_t nlink;
	char tag[TAGLEN];
};

#define MAXENT (NDIRS * (MAXW * NSLOT + NSHARED + NMISS + 64))

extern struct shared *sh;
extern struct wstat *me;
extern int wid, nworkers, nfs, allow_nfs_names, no_exchange, no_noreplace, fstype_tmpfs;
extern long nops;
extern unsigned long long seed;
extern enum fmode fmode;
extern const char *mnt, *tree, *remount_target, *manifest, *logdir, *fault_off;
extern char root[4096];
extern int rootfd, dfd[NDIRS];
extern FILE *wlog;
extern uint64_t rng;
extern struct entry ent[MAXENT];
extern int nent, nfs_leftovers;
extern int check_fail;
extern int nfirst;
extern long lenient_total;
extern long long neg_before;

int rn(int n);
void logop(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void contra(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void count_err(int e);
int injected_errno(int e);
void unexpected(int e, const char *what);
int err_of(int ret);
void owned_name(char *buf, size_t len, int w, int k);
int classify(const char *name, int *w, int *k);
int mode_type(mode_t m);
int dtype_type(unsigned char d);
int read_at(int dir, const char *name, char *buf, size_t len);
int well_formed(const char *s);
struct slot *S(int k);
void resync(int k);
int write_tag(int fd, const char *tag);
void owned_op(void);
void open_dirs(void);
void worker(int i);
void remounter(void);
void cfail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void report(const char *what);
void scan_tree(void);
void check_links(void);
struct entry *find_ent(int dir, const char *name);
void write_manifest(void);
void setup_tree(void);

#endif /* NDSTRESS_H */
