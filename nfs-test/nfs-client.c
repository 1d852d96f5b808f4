// SPDX-License-Identifier: GPL-2.0
/*
 * nfs-client: what an NFS client sees of a loopback export, checked from
 * the client mounts and from the server's own filesystem.
 *
 *   nfs-client SOURCE EXTRA_OPTIONS MNT_A MNT_B SERVER_DIR VERS LOOKUPCACHE ACTIMEO
 *
 * Mounts the export SOURCE (127.0.0.1:PATH) with mount(2) as two clients,
 * with vers=VERS,lookupcache=LOOKUPCACHE,actimeo=ACTIMEO and EXTRA_OPTIONS
 * (",nolock", ",clientaddr=..."):
 *   A on MNT_A: from 127.0.0.1;
 *   B on MNT_B: through 127.0.0.2 (the whole of 127/8 is loopback) and
 *      under another host name (see mount_lock()), so that B has a client of
 *      its own: its own caches and, for NFSv4, its own client ID.  A second
 *      mount of one client (nosharecache alone) would be the same client to
 *      the server, which then does not recall the read delegation it gave
 *      to B's open when A opens the file for writing ("we avoid breaking
 *      delegations held by a client due to its own activity",
 *      fs/nfsd/nfs4state.c): B would keep serving its cached data.
 * SERVER_DIR is
 * where the exported filesystem is mounted on the server.  Everything
 * happens in a new directory work-vVERS-LOOKUPCACHE of the export; both
 * mounts are unmounted at the end.  guest.sh runs nfs-client only for a
 * version that nfsd and the client offer, so a mount that fails, even with
 * EPROTONOSUPPORT, is a failure: "Bail out!" naming the mount, the version
 * and the error (summary.py counts it, and every planned check it
 * prevented, as failed).  Nothing here is skipped.
 *
 * The expectations are NFS semantics (nfs(5), RFC 1813/7530/8881) as the
 * 6.1 client implements them (fs/nfs/dir.c):
 *
 *  - lookupcache=all: a cached "name does not exist" may be trusted until
 *    the parent directory's attributes expire (acdirmax) and show a change
 *    (may, not must: see miss_at_once());
 *    lookupcache=positive and none never trust a cached miss; none also
 *    revalidates every positive entry before use.
 *  - A name created through a mount is visible on that mount at once.
 *  - Close-to-open: an open after another client's close sees its data.
 *  - Removing an open file: the client renames it to .nfsXXXX and removes
 *    that at last close (silly rename).  NFSv3 and v4.0 have no other way;
 *    from v4.1 a server may instead keep the unlinked file itself
 *    (OPEN4_RESULT_PRESERVE_UNLINKED), which the 6.1 nfsd does not offer.
 *  - A file removed on the server behind the client's back: path lookups
 *    end in ENOENT once the cached entry is revalidated; ESTALE stays
 *    inside the kernel (the VFS retries the walk with LOOKUP_REVAL).
 *
 * Nothing here depends on the server's negative dentry policy, so stock
 * and patched kernels must give identical results; the 0/1 outcomes that
 * depend on caching are metrics, with expect=equal where NFS fixes the
 * outcome and as plain observations (a "#" line and a metric without
 * expect=) where it does not (see miss_at_once()).
 */
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include "nfst.h"
#include "../guest/ndt.h"

/*
 * TAP checks of a run; under lookupcache=all the AT_ONCE "at once"
 * outcomes of miss_at_once() are observations, not checks.
 */
#define PLAN 27
#define AT_ONCE 2

enum lookupcache { LC_ALL, LC_POSITIVE, LC_NONE };

static const char *vers, *lcname;
static enum lookupcache lc;
static int ac;				/* actimeo: acregmin/max, acdirmin/max */
static char wa[PATH_LEN], wb[PATH_LEN], ws[PATH_LEN];	/* WORK on A, B, server */

/* "A:", "B:" or "server:" relative path, for messages. */
static char *pa(char *buf, const char *rel) { return pathf(buf, "%s/%s", wa, rel); }
static char *pb(char *buf, const char *rel) { return pathf(buf, "%s/%s", wb, rel); }
static char *ps(char *buf, const char *rel) { return pathf(buf, "%s/%s", ws, rel); }

static void must(int err, const char *what, const char *path)
{
	if (err)
		tap_bail(err, "%s %s", what, path);
}

static void mkdir_a(const char *rel)
{
	char p[PATH_LEN];

	if (mkdir(pa(p, rel), 0755))
		tap_bail(errno, "mkdir %s", p);
}

/* Open and close a directory: forces fresh attributes (close-to-open). */
static void refresh_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		tap_bail(errno, "open %s", path);
	close(fd);
}

/*
 * Phase 3 for one name created after a client's cached miss: stat PATH at
 * once.  Sets *LAT when the name is seen.
 *
 * lookupcache=positive and none never trust a cached miss: the name must
 * be visible, on every kernel.
 *
 * lookupcache=all lets the client trust the miss until the directory's
 * attributes expire, but nothing obliges it to: nfs(5) bounds how long a
 * miss may be trusted, not how long it must be.  The stock kernel was
 * seen both ways with the attributes 0.07 s old (actimeo=1) in two CI
 * runs: tmpfs export, NFSv4.2, B seeing a name created through A.  So
 * under lookupcache=all the outcome is no check but an observation: a
 * diagnostic line with what was seen and the attributes' age, and a metric
 * without a cross-kernel expectation (listed as a plain number); the bound
 * that NFS does promise is checked in phase 4, and that the client caches
 * misses at all is counted exactly by nfs-dentries (client_miss_negative).
 */
static void miss_at_once(const char *path, double t_ref, double t0,
			double *lat, const char *what, const char *metric)
{
	int e = stat_err(path, NULL);
	int hidden = e == ENOENT;
	double age = now() - t_ref;	/* at the end of the stat: an upper bound */

	if (!e)
		*lat = now() - t0;
	if (lc == LC_ALL) {
		tap_diag("lookup: %s at once: observed %s%s, the directory's attributes %.2f s old (lookupcache=all may or may not trust the miss until acdirmax: not a check)",
			 what, hidden ? "hidden" : e ? "an error: " : "visible",
			 e && !hidden ? errname(e) : "", age);
		tap_metric(metric, hidden);
		return;
	}
	tap_ok(!e, "lookup: %s at once: %s (lookupcache=%s: misses are never trusted, visible)",
	       what, errname(e), lcname);
	printf("# metric %s %d expect=equal\n", metric, hidden);
}

/*
 * Lookup caching, close-to-open and server-side removal, in phases that
 * share their waits:
 *   0. set up through A; B reads a file A wrote (close-to-open, first open)
 *   1. wait for the second to turn (see wait_ctime_second()); refresh the
 *      directories' attributes; A and B look up names that do not exist
 *   2. the server creates nx/x and removes es/f, es/g behind the clients'
 *      backs; A creates ny/y
 *   3. what A and B see at once (see miss_at_once()); A rewrites cto/f
 *   4. what they see within the attribute timeout
 *   5. the server re-creates es/f: A reaches the new file
 */
static void lookup_cto_estale(void)
{
	char p[PATH_LEN], q[PATH_LEN], buf[256];
	const char *stamp[6];
	char s0[PATH_LEN], s1[PATH_LEN], s2[PATH_LEN], s3[PATH_LEN], s4[PATH_LEN];
	double t0, t_ref_a, t_ref_b, lat_x = -1, lat_y = -1, lat_e = -1, lat_r = -1, end;
	int e, e1, e2, e3, fd_g, estale = 0, other = 0;
	int first_e;
	ssize_t n;

	mkdir_a("nx");
	mkdir_a("ny");
	mkdir_a("es");
	mkdir_a("cto");
	must(write_file(pa(p, "es/f"), O_CREAT | O_EXCL, "one"), "create", p);
	must(write_file(pa(p, "es/g"), O_CREAT | O_EXCL, "gggg"), "create", p);
	must(write_file(pa(p, "cto/f"), O_CREAT | O_EXCL, "version-1"), "create", p);

	/* 0. close-to-open: B has never seen the file */
	e = read_file(pb(p, "cto/f"), buf, sizeof(buf));
	tap_ok(!e && !strcmp(buf, "version-1"),
	       "close-to-open: B's first open sees what A wrote and closed (%s, \"%s\")",
	       errname(e), buf);

	/* A holds g open and has read it; A has f's dentry and attributes */
	fd_g = open(pa(p, "es/g"), O_RDONLY);
	if (fd_g < 0)
		tap_bail(errno, "open %s", p);
	if (read(fd_g, buf, sizeof(buf)) < 0)
		tap_bail(errno, "read %s", p);

	/* 1. */
	stamp[0] = ps(s0, "nx");
	stamp[1] = ps(s1, "ny");
	stamp[2] = ps(s2, "es");
	stamp[3] = ps(s3, "cto/f");
	stamp[4] = ps(s4, "cto");
	stamp[5] = ws;
	wait_ctime_second(stamp, 6);
	t_ref_a = now();
	refresh_dir(pa(p, "nx"));
	refresh_dir(pa(p, "ny"));
	t_ref_b = now();
	refresh_dir(pb(p, "ny"));
	must(read_file(pa(p, "es/f"), buf, sizeof(buf)), "read", p);
	e1 = stat_err(pa(p, "nx/x"), NULL);
	e2 = stat_err(pa(p, "ny/y"), NULL);
	e3 = stat_err(pb(p, "ny/y"), NULL);
	tap_ok(e1 == ENOENT && e2 == ENOENT && e3 == ENOENT,
	       "lookup: names not yet created are missing on A and B (%s, %s, %s)",
	       errname(e1), errname(e2), errname(e3));

	/* 2. */
	must(write_file(ps(p, "nx/x"), O_CREAT | O_EXCL, "x"), "server create", p);
	must(unlink(ps(p, "es/f")) ? errno : 0, "server unlink", p);
	must(unlink(ps(p, "es/g")) ? errno : 0, "server unlink", p);
	t0 = now();
	e = write_file(pa(p, "ny/y"), O_CREAT | O_EXCL, "y");

	/* 3. */
	if (!e)
		e = stat_err(pa(p, "ny/y"), NULL);
	tap_ok(!e, "lookup: a name created through A is visible on A at once (%s)",
	       errname(e));
	miss_at_once(pa(p, "nx/x"), t_ref_a, t0, &lat_x,
		     "created on the server after A's miss: A",
		     "lookup_miss_hidden_server_create");
	miss_at_once(pb(p, "ny/y"), t_ref_b, t0, &lat_y,
		     "created through A after B's miss: B",
		     "lookup_miss_hidden_other_mount");
	must(write_file(pa(q, "cto/f"), O_TRUNC, "version-2"), "rewrite", q);
	e = read_file(pb(p, "cto/f"), buf, sizeof(buf));
	tap_ok(!e && !strcmp(buf, "version-2"),
	       "close-to-open: B's next open sees A's rewrite (%s, \"%s\")",
	       errname(e), buf);
	first_e = stat_err(pa(p, "es/f"), NULL);
	if (first_e == ENOENT)
		lat_e = now() - t0;

	/* 4. bounded: both attribute timeouts plus slack for TCG */
	end = t0 + 2 * ac + 5;
	while ((lat_x < 0 || lat_y < 0 || lat_e < 0) && now() < end) {
		sleep_ms(50);
		if (lat_x < 0 && !stat_err(pa(p, "nx/x"), NULL))
			lat_x = now() - t0;
		if (lat_y < 0 && !stat_err(pb(p, "ny/y"), NULL))
			lat_y = now() - t0;
		if (lat_e < 0) {
			e = stat_err(pa(p, "es/f"), NULL);
			if (e == ENOENT)
				lat_e = now() - t0;
			else if (e == ESTALE)
				estale++;
			else if (e)
				other++;
		}
	}
	tap_ok(lat_x >= 0 && lat_x <= ac + 2,
	       "lookup: the server-side create is visible on A within acdirmax+2 = %d s (%.2f s)",
	       ac + 2, lat_x);
	tap_ok(lat_y >= 0 && lat_y <= ac + 2,
	       "lookup: the create through A is visible on B within acdirmax+2 = %d s (%.2f s)",
	       ac + 2, lat_y);
	if (lc == LC_NONE)
		tap_ok(first_e == ENOENT && !estale && !other,
		       "server-side unlink of a file A had cached: ENOENT on A at once (lookupcache=none revalidates every entry; %s)",
		       errname(first_e));
	else
		tap_ok(lat_e >= 0 && lat_e <= 2 * ac + 2 && !estale && !other,
		       "server-side unlink of a file A had cached: ENOENT on A within acregmax+acdirmax+2 = %d s (%.2f s; ESTALE seen %d, other errors %d)",
		       2 * ac + 2, lat_e, estale, other);

	n = pread(fd_g, buf, sizeof(buf) - 1, 0);
	e = n < 0 ? errno : 0;
	if (n >= 0)
		buf[n] = '\0';
	tap_ok((n >= 0 && !strcmp(buf, "gggg")) || e == ESTALE,
	       "fd of a file removed on the server: read gives the old data or ESTALE (got %s%s%s%s)",
	       n >= 0 ? "\"" : "", n >= 0 ? buf : errname(e), n >= 0 ? "\"" : "",
	       !strcmp(vers, "3") ? "; v3: nothing keeps the inode on the server" :
	       "; v4: the open state keeps the inode on the server");
	close(fd_g);

	/* 5. */
	stamp[0] = ps(s0, "es");
	wait_ctime_second(stamp, 1);
	must(write_file(ps(p, "es/f"), O_CREAT | O_EXCL, "two"), "server re-create", p);
	t0 = now();
	end = t0 + ac + 5;
	do {
		if (has_content(pa(p, "es/f"), "two")) {
			lat_r = now() - t0;
			break;
		}
		sleep_ms(50);
	} while (now() < end);
	if (lc == LC_ALL)
		tap_ok(lat_r >= 0 && lat_r <= ac + 2,
		       "server re-created the name: A opens the new file within acdirmax+2 = %d s (%.2f s)",
		       ac + 2, lat_r);
	else
		tap_ok(lat_r >= 0 && lat_r < 0.5,
		       "server re-created the name: A opens the new file at once (lookupcache=%s; %.2f s)",
		       lcname, lat_r);
}

/* Silly rename: count .nfsXXXX entries and the name itself on the server. */
struct scan_sr { int silly, name; };

static void count_sr(const char *name, void *arg)
{
	struct scan_sr *s = arg;

	if (!strncmp(name, ".nfs", 4))
		s->silly++;
	else if (!strcmp(name, "f"))
		s->name++;
}

static struct scan_sr scan_server(const char *rel)
{
	struct scan_sr s = { 0, 0 };
	char p[PATH_LEN];

	if (scan_dir(ps(p, rel), count_sr, &s) < 0)
		tap_bail(errno, "readdir %s", p);
	return s;
}

static void silly_rename(void)
{
	static const char data[] = "written-after-unlink";
	char p[PATH_LEN], buf[64];
	int fd, e, v41 = strcmp(vers, "3") && strcmp(vers, "4.0");
	struct scan_sr s;
	double end;
	ssize_t n;

	mkdir_a("sr");
	must(write_file(pa(p, "sr/f"), O_CREAT | O_EXCL, "silly"), "create", p);
	fd = open(p, O_RDWR);
	if (fd < 0)
		tap_bail(errno, "open %s", p);
	must(unlink(p) ? errno : 0, "unlink", p);
	e = stat_err(p, NULL);
	s = scan_server("sr");
	tap_ok(e == ENOENT && !s.name,
	       "silly rename: after unlink of an open file its name is gone on A (%s) and on the server (%d)",
	       errname(e), s.name);
	if (v41)
		tap_ok(s.silly <= 1,
		       "silly rename: server shows %d .nfsXXXX entries while the file is open (v%s: 1 if the client silly-renames, 0 if the server preserves unlinked open files)",
		       s.silly, vers);
	else
		tap_ok(s.silly == 1,
		       "silly rename: server shows %d .nfsXXXX entry while the file is open (v%s has no other way: want 1)",
		       s.silly, vers);
	printf("# metric silly_renamed %d expect=equal\n", s.silly);

	e = 0;
	if (pwrite(fd, data, strlen(data), 0) != (ssize_t)strlen(data) || fsync(fd))
		e = errno;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n < 0 && !e)
		e = errno;
	buf[n > 0 ? n : 0] = '\0';
	tap_ok(!e && !strcmp(buf, data),
	       "silly rename: write, fsync and read through the open descriptor work (%s, \"%s\")",
	       errname(e), buf);
	close(fd);

	/* the client removes .nfsXXXX asynchronously after the last close */
	end = now() + 5;
	do {
		s = scan_server("sr");
		if (!s.silly && !s.name)
			break;
		sleep_ms(50);
	} while (now() < end);
	tap_ok(!s.silly && !s.name,
	       "silly rename: nothing of the file is left on the server within 5 s of close (%d .nfs, %d f)",
	       s.silly, s.name);
}

/* Whether A and the server both show @rel with errno @err (0: exists). */
static int both(const char *rel, int err, struct stat *sta, struct stat *sts)
{
	char p[PATH_LEN];

	return stat_err(pa(p, rel), sta) == err && stat_err(ps(p, rel), sts) == err;
}

static int both_content(const char *rel, const char *want)
{
	char p[PATH_LEN];

	return has_content(pa(p, rel), want) && has_content(ps(p, rel), want);
}

/* readdir: bit i of *seen set when "r<i>" is listed; anything else counts. */
struct scan_r { unsigned long long seen; int other; };

static void count_r(const char *name, void *arg)
{
	struct scan_r *s = arg;
	char *end;
	long i;

	if (name[0] == 'r') {
		i = strtol(name + 1, &end, 10);
		if (!*end && i >= 0 && i < 64) {
			s->seen |= 1ULL << i;
			return;
		}
	}
	s->other++;
}

static struct scan_r scan_r(const char *dir)
{
	struct scan_r s = { 0, 0 };

	if (scan_dir(dir, count_r, &s) < 0)
		tap_bail(errno, "readdir %s", dir);
	return s;
}

#define EVEN 0x55555555ULL	/* r0, r2, ... r30 */

static void race(void);

static void namespace_ops(void)
{
	char p[PATH_LEN], q[PATH_LEN], d[PATH_LEN];
	struct stat sa, ss, ha, hs;
	struct scan_r ra, rs;
	int i, e, ok, nl[4];

	mkdir_a("ns");
	e = write_file(pa(p, "ns/f"), O_CREAT | O_EXCL, "F");
	tap_ok(!e && both("ns/f", 0, NULL, NULL),
	       "create: visible on A and on the server (%s)", errname(e));

	e = unlink(p) ? errno : 0;
	tap_ok(!e && both("ns/f", ENOENT, NULL, NULL),
	       "unlink: ENOENT on A and on the server (%s)", errname(e));

	e = write_file(p, O_CREAT | O_EXCL, "F");
	tap_ok(!e && both_content("ns/f", "F"),
	       "create the same name again: new file on A and on the server (%s)",
	       errname(e));

	must(write_file(pa(q, "ns/g"), O_CREAT | O_EXCL, "G"), "create", q);
	e = rename(p, q) ? errno : 0;
	tap_ok(!e && both_content("ns/g", "F") && both("ns/f", ENOENT, NULL, NULL),
	       "rename over an existing name: target has the source's data, source gone (%s)",
	       errname(e));

	e = rename(q, p) ? errno : 0;
	tap_ok(!e && both_content("ns/f", "F") && both("ns/g", ENOENT, NULL, NULL),
	       "rename back: the old name has the data, the other is gone (%s)",
	       errname(e));

	/*
	 * The new link is checked on A by stat alone (the inode of ns/f),
	 * never read: a read leaves the open context, and with it a
	 * reference to ns/h's dentry, to the RPC's release, which runs in
	 * rpciod after the page is unlocked (nfs_readpage_release()).  An
	 * unlink that comes first finds the dentry busy and silly-renames
	 * it, on every kernel, and the server then counts 2 links until
	 * the .nfsXXXX name goes: seen once in CI on the debug kernel.
	 */
	nl[0] = nl[1] = nl[2] = nl[3] = 0;
	e = link(p, pa(q, "ns/h")) ? errno : 0;
	ok = !e && both("ns/f", 0, &sa, &ss);
	if (ok) {
		nl[0] = sa.st_nlink;
		nl[1] = ss.st_nlink;
		ok = nl[0] == 2 && nl[1] == 2 && both("ns/h", 0, &ha, &hs) &&
		     ha.st_ino == sa.st_ino && hs.st_ino == ss.st_ino &&
		     has_content(ps(d, "ns/h"), "F");
	}
	ok = ok && !(e = unlink(q) ? errno : 0) && both("ns/h", ENOENT, NULL, NULL) &&
	     both("ns/f", 0, &sa, &ss);
	if (ok) {
		nl[2] = sa.st_nlink;
		nl[3] = ss.st_nlink;
		ok = nl[2] == 1 && nl[3] == 1;
	}
	tap_ok(ok, "link, then unlink the link: link count 2 then 1 on A and on the server (A %d then %d, server %d then %d: %s)",
	       nl[0], nl[2], nl[1], nl[3], errname(e));

	ok = 1;
	for (i = 0; i < 10 && ok; i++) {
		pa(d, "ns/d");
		ok = !(e = mkdir(d, 0755) ? errno : 0) && both("ns/d", 0, &sa, &ss) &&
		     S_ISDIR(sa.st_mode) && S_ISDIR(ss.st_mode) &&
		     !(e = rmdir(d) ? errno : 0) && both("ns/d", ENOENT, NULL, NULL);
	}
	tap_ok(ok, "mkdir and rmdir of the same name, 10 times, seen alike on A and on the server (round %d: %s)",
	       i, errname(e));

	/* readdir: 32 names, remove the odd ones, list, remove the rest, list */
	mkdir_a("rd");
	for (i = 0; i < 32; i++)
		must(write_file(pathf(p, "%s/rd/r%d", wa, i), O_CREAT | O_EXCL, ""),
		     "create", p);
	for (i = 1; i < 32; i += 2)
		must(unlink(pathf(p, "%s/rd/r%d", wa, i)) ? errno : 0, "unlink", p);
	ra = scan_r(pa(p, "rd"));
	rs = scan_r(ps(p, "rd"));
	tap_ok(ra.seen == EVEN && !ra.other && rs.seen == EVEN && !rs.other,
	       "readdir after unlink: no removed name is listed, every other one is (A %#llx, server %#llx)",
	       ra.seen, rs.seen);
	for (i = 0; i < 32; i += 2)
		must(unlink(pathf(p, "%s/rd/r%d", wa, i)) ? errno : 0, "unlink", p);
	ra = scan_r(pa(p, "rd"));
	rs = scan_r(ps(p, "rd"));
	tap_ok(!ra.seen && !ra.other && !rs.seen && !rs.other,
	       "readdir after unlinking the rest (A read it before): empty on A and on the server (A %#llx, server %#llx)",
	       ra.seen, rs.seen);

	/* the same name over and over: the create-after-unlink pattern */
	ok = 1;
	pa(p, "ns/same");
	for (i = 0; i < 20 && ok; i++) {
		ok = (e = stat_err(p, NULL)) == ENOENT &&
		     !(e = write_file(p, O_CREAT | O_EXCL, "s")) &&
		     !(e = stat_err(p, NULL)) &&
		     !(e = unlink(p) ? errno : 0);
	}
	tap_ok(ok && both("ns/same", ENOENT, NULL, NULL),
	       "create, stat, unlink of the same name, 20 rounds (round %d: %s)",
	       i, errname(e));

	race();
}

/*
 * Exclusive create racing with unlink of the same name on A, 50 tries
 * each, bounded by 30 s.  Each call must succeed or fail with the errno
 * that says someone else won (EEXIST, ENOENT); the successes must add up
 * to whether the file exists at the end, on A and on the server.
 */
static void race(void)
{
	enum { TRIES = 50 };
	char p[PATH_LEN];
	int pfd[2], i, fd, creates = 0, exist = 0, other = 0, bad = 0, e;
	int child[3] = { 0, 0, 0 };	/* unlinks, ENOENT, other errors */
	double end = now() + 30;
	pid_t pid;

	pa(p, "ns/race");
	if (pipe(pfd))
		tap_bail(errno, "pipe");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		tap_bail(errno, "fork");
	if (!pid) {
		close(pfd[0]);
		for (i = 0; i < TRIES && now() < end; i++) {
			if (!unlink(p))
				child[0]++;
			else if (errno == ENOENT)
				child[1]++;
			else
				child[2]++;
		}
		if (write(pfd[1], child, sizeof(child)) != sizeof(child))
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	for (i = 0; i < TRIES && now() < end; i++) {
		fd = open(p, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd >= 0) {
			creates++;
			close(fd);
		} else if (errno == EEXIST) {
			exist++;
		} else {
			bad = errno;
			other++;
		}
	}
	if (read(pfd[0], child, sizeof(child)) != sizeof(child))
		tap_bail(errno, "reading the unlinker's counts");
	close(pfd[0]);
	waitpid(pid, NULL, 0);
	e = stat_err(p, NULL);
	tap_ok(!other && !child[2] && creates >= 1 && (e == 0 || e == ENOENT) &&
	       creates - child[0] == !e && both("ns/race", e, NULL, NULL),
	       "O_EXCL create racing with unlink: %d created, %d EEXIST, %d unlinked, %d ENOENT, %d/%d other errors (%s), exists at end: %s",
	       creates, exist, child[0], child[1], other, child[2], errname(bad),
	       e ? "no" : "yes");
	if (!e)
		unlink(p);
}

/* mount(2) the export on @dir; returns 0 or an errno. */
static int mount_nfs(const char *source, const char *opts, const char *dir)
{
	const char *type = strcmp(vers, "3") ? "nfs4" : "nfs";

	return mount(source, dir, type, 0, opts) ? errno : 0;
}

/*
 * Mounts create the NFS client (struct nfs_client) of a server address on
 * first use, and the NFSv4 client ID string is made of the host name at
 * that moment (cl_nodename, fs/nfs/nfs4proc.c).  B's mount runs under
 * another host name; the exports run side by side, so every mount of
 * every nfs-client takes this lock and A's never see B's name.
 */
static void mount_lock(int op)
{
	static int fd = -1;

	if (fd < 0)
		fd = open("/run/nfs-client.lock", O_CREAT | O_RDWR, 0600);
	if (fd < 0 || flock(fd, op))
		tap_bail(errno, "lock /run/nfs-client.lock");
}

static int mount_nfs_as(const char *host, const char *source, const char *opts,
			const char *dir)
{
	char saved[256];
	int e;

	mount_lock(LOCK_EX);
	if (gethostname(saved, sizeof(saved)) || sethostname(host, strlen(host)))
		tap_bail(errno, "set host name %s", host);
	e = mount_nfs(source, opts, dir);
	if (sethostname(saved, strlen(saved)))
		tap_bail(errno, "restore host name %s", saved);
	mount_lock(LOCK_UN);
	return e;
}

/*
 * A mount failed: every check needs both mounts.  guest.sh has checked
 * that nfsd and the client offer VERS, so EPROTONOSUPPORT is no excuse.
 */
static void __attribute__((noreturn))
mount_failed(int err, const char *which, const char *opts, const char *source,
	     const char *dir)
{
	tap_bail(err, "mount %s, NFS v%s%s: mount -t %s -o %s %s %s", which, vers,
		 err == EPROTONOSUPPORT ?
		 " (guest.sh found nfsd and the client offering it)" : "",
		 strcmp(vers, "3") ? "nfs4" : "nfs", opts, source, dir);
}

static void show_mount(const char *dir)
{
	char type[64], opts[2048];

	if (mount_info(dir, type, sizeof(type), opts, sizeof(opts)))
		tap_diag("%s: %s %s", dir, type, opts);
}

int main(int argc, char **argv)
{
	static const char *const lcs[] = { "all", "positive", "none" };
	char opts[512], opts_b[512], source_b[PATH_LEN], host[256];
	const char *source, *a, *b;
	unsigned int i;
	double t0, t;
	int e;

	if (argc != 9) {
		fprintf(stderr, "usage: %s SOURCE EXTRA_OPTIONS MNT_A MNT_B SERVER_DIR VERS LOOKUPCACHE ACTIMEO\n",
			argv[0]);
		return 2;
	}
	source = argv[1];
	a = argv[3];
	b = argv[4];
	vers = argv[6];
	lcname = argv[7];
	for (i = 0; i < 3 && strcmp(lcname, lcs[i]); i++)
		;
	if (i == 3) {
		fprintf(stderr, "lookupcache must be all, positive or none\n");
		return 2;
	}
	lc = i;
	ac = atoi(argv[8]);
	if (strncmp(source, "127.0.0.1:", 10)) {
		fprintf(stderr, "SOURCE must be 127.0.0.1:PATH\n");
		return 2;
	}
	pathf(source_b, "127.0.0.2:%s", source + 10);
	snprintf(opts, sizeof(opts), "vers=%s,lookupcache=%s,actimeo=%d,addr=127.0.0.1%s",
		 vers, lcname, ac, argv[2]);
	snprintf(opts_b, sizeof(opts_b), "vers=%s,lookupcache=%s,actimeo=%d,addr=127.0.0.2%s",
		 vers, lcname, ac, argv[2]);
	pathf(wa, "%s/work-v%s-%s", a, vers, lcname);
	pathf(wb, "%s/work-v%s-%s", b, vers, lcname);
	pathf(ws, "%s/work-v%s-%s", argv[5], vers, lcname);

	tap_plan(lc == LC_ALL ? PLAN - AT_ONCE : PLAN);
	tap_diag("NFS v%s lookupcache=%s actimeo=%d: %s on A %s and B %s, server %s",
		 vers, lcname, ac, source, a, b, argv[5]);
	t0 = now();
	gethostname(host, sizeof(host));
	e = mount_nfs_as(host, source, opts, a);
	if (e)
		mount_failed(e, "A", opts, source, a);
	e = mount_nfs_as("ndt-client-b", source_b, opts_b, b);
	if (e)
		mount_failed(e, "B (host name ndt-client-b)", opts_b, source_b, b);
	show_mount(a);
	show_mount(b);
	t = now();
	tap_diag("mounts: %.2f s", t - t0);
	if (mkdir(wa, 0755))
		tap_bail(errno, "mkdir %s", wa);
	lookup_cto_estale();
	tap_diag("lookup, close-to-open, server-side removal: %.2f s", now() - t);
	t = now();
	silly_rename();
	tap_diag("silly rename: %.2f s", now() - t);
	t = now();
	namespace_ops();
	tap_diag("namespace operations: %.2f s", now() - t);
	t = now();
	e = umount2(a, 0) ? errno : 0;
	if (!e)
		e = umount2(b, 0) ? errno : 0;
	tap_ok(!e, "unmount A and B (%s)", errname(e));
	tap_diag("unmounts: %.2f s", now() - t);
	return tap_exit();
}
