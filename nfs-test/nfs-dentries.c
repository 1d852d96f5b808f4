// SPDX-License-Identifier: GPL-2.0
/*
 * nfs-dentries: negative dentries that NFS traffic leaves on the client and
 * on the server of a loopback export.
 *
 *   nfs-dentries SOURCE OPTIONS MNT SERVER_DIR [N]
 *
 * Mounts SOURCE on MNT with mount(2) (type nfs, or nfs4 if OPTIONS start
 * with vers=4; text OPTIONS, which must include addr=), creates and unlinks N files through it, unmounts; mounts
 * again, looks up N names that do not exist, unmounts.  nr_negative of
 * /proc/sys/fs/dentry-state is global, so the client's share is what the
 * unmount frees and the server's share is what is left.  mount(2) and
 * umount2(2) are called directly so that no helper program touches the
 * guest's tmpfs directories (/run, /tmp) while the count is taken.
 *
 * Expectations:
 *  - client: fs/nfs keeps the negative dentry that unlink leaves
 *    (nfs_dentry_delete() returns 0 for it) and, with the default
 *    lookupcache=all, the one a lookup miss makes: about N each, the same on
 *    every kernel (the series does not touch fs/nfs): expect=same.
 *  - server: nfsd unlinks with vfs_unlink() and looks names up with
 *    lookup_one_len() on the exported filesystem, so the server keeps what
 *    that filesystem's policy keeps, the one the harness declares for the
 *    kernel (NDT_EXPECT, see guest/ndt.h; stock: "all" on ext2/ext4, "none"
 *    on tmpfs; series: the default, "lookup" on ext2/ext4 and "none" on
 *    tmpfs): unlink leaves at most N
 *    under "all" and none under "lookup"/"none"; misses leave about N
 *    under "all"/"lookup" and none under "none".
 * The cross-kernel expectations for the server are per filesystem type,
 * see server_expect().
 */
#include <sys/mount.h>
#include <sys/wait.h>
#include "nfst.h"
#include "../guest/ndt.h"

#define WORKERS 2

static int n = 2000;
static const char *source, *options, *mnt, *srv;

static void do_mount(void)
{
	const char *type = strncmp(options, "vers=4", 6) ? "nfs" : "nfs4";

	if (mount(source, mnt, type, 0, options))
		tap_bail(errno, "mount -t nfs -o %s %s %s", options, source, mnt);
}

static void do_umount(void)
{
	if (umount2(mnt, 0))
		tap_bail(errno, "umount %s", mnt);
}

/*
 * Runs @fn on WORKERS processes at once, each in its own directory
 * MNT/acct/wI with its share of the N names (TCG runs the two guest CPUs
 * in parallel; names in one directory would serialise on its lock), and
 * returns the client's and the server's share of the negative dentries
 * they leave.
 */
static void measure(void (*fn)(const char *dir, int from, int to),
		    long long *client, long long *server)
{
	char p[PATH_LEN];
	long long base, total, after;
	int i, status, failed = 0;
	pid_t pid;

	do_mount();
	base = nr_negative();
	fflush(stdout);
	for (i = 0; i < WORKERS; i++) {
		pid = fork();
		if (pid < 0)
			tap_bail(errno, "fork");
		if (!pid) {
			fn(pathf(p, "%s/acct/w%d", mnt, i), i * n / WORKERS,
			   (i + 1) * n / WORKERS);
			exit(0);
		}
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			failed = 1;
	if (failed)
		tap_bail(0, "a worker failed (see its Bail out! above)");
	total = nr_negative();
	do_umount();
	after = nr_negative();
	*client = total - after;
	*server = after - base;
}

static void create_unlink_range(const char *dir, int from, int to)
{
	char p[PATH_LEN];
	int i, fd;

	for (i = from; i < to; i++) {
		fd = open(pathf(p, "%s/u%d", dir, i), O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0)
			tap_bail(errno, "create %s", p);
		close(fd);
	}
	for (i = from; i < to; i++)
		if (unlink(pathf(p, "%s/u%d", dir, i)))
			tap_bail(errno, "unlink %s", p);
}

static void misses_range(const char *dir, int from, int to)
{
	char p[PATH_LEN];
	int i;

	for (i = from; i < to; i++)
		if (stat_err(pathf(p, "%s/m%d", dir, i), NULL) != ENOENT)
			tap_bail(errno, "stat %s did not fail with ENOENT", p);
}

static int near(long long got, long long want)
{
	return llabs(got - want) <= n / 100;
}

/*
 * What the patched kernel's server count must be relative to stock, from
 * stock's policy and the series' default on the exported filesystem.
 * unlink: ext2/ext4 stock keeps one per name (negdentry=all), the series'
 * default frees them: at most 1% of stock.  Where both free them (tmpfs),
 * stock is ~0 and a ratio to it means nothing: the patched kernel must
 * simply leave the same (none).  misses: kept by both on ext2/ext4, by
 * neither on tmpfs: the same (cross_rule() in guest/ndt.h).
 */
static const char *server_expect(const char *dir, int unlink)
{
	enum policy s = stock_policy(dir), q = series_default(dir);
	static char rule[32];

	if (unlink)
		return cross_rule(rule, sizeof(rule), s == POLICY_ALL ? n : 0,
				  q == POLICY_ALL ? n : 0, "0.01");
	return cross_rule(rule, sizeof(rule), s == POLICY_NONE ? 0 : n,
			  q == POLICY_NONE ? 0 : n, "0.01");
}

int main(int argc, char **argv)
{
	char p[PATH_LEN], type[64], opts[2048], seen[64];
	long long cu, su, cm, sm;
	enum policy policy;
	int i;

	if (argc < 5) {
		fprintf(stderr, "usage: %s SOURCE OPTIONS MNT SERVER_DIR [N]\n", argv[0]);
		return 2;
	}
	source = argv[1];
	options = argv[2];
	mnt = argv[3];
	srv = argv[4];
	if (argc > 5)
		n = atoi(argv[5]);

	tap_plan(5);
	if (!mount_info(srv, type, sizeof(type), opts, sizeof(opts)))
		tap_bail(0, "%s is not a mount point", srv);
	policy = expected_policy(srv);
	tap_diag("server %s: %s, %s kernel, negdentry=%s; client: %s %s",
		 srv, type, expect_series() ? "series" : "stock",
		 policy_names[policy], source, options);
	tap_ok(shows_policy(srv, policy, seen, sizeof(seen)),
	       "server: /proc/mounts shows %s for %s", seen, srv);
	if (mkdir(pathf(p, "%s/acct", srv), 0755))
		tap_bail(errno, "mkdir %s", p);

	for (i = 0; i < WORKERS; i++)
		if (mkdir(pathf(p, "%s/acct/w%d", srv, i), 0755))
			tap_bail(errno, "mkdir %s", p);
	measure(create_unlink_range, &cu, &su);
	measure(misses_range, &cm, &sm);

	printf("# metric client_unlink_negative %lld expect=same\n", cu);
	printf("# metric server_unlink_negative %lld%s\n", su, server_expect(srv, 1));
	printf("# metric client_miss_negative %lld expect=same\n", cm);
	printf("# metric server_miss_negative %lld%s\n", sm, server_expect(srv, 0));

	tap_ok(near(cu, n),
	       "client: %d create+unlink through NFS leave %lld negative dentries on the client (want %d: nfs keeps them)",
	       n, cu, n);
	if (policy == POLICY_ALL)
		tap_ok(near(su, n),
		       "server: they leave %lld on the server (negdentry=all: %d, one per name nfsd unlinked)",
		       su, n);
	else
		tap_ok(near(su, 0),
		       "server: they leave %lld on the server (negdentry=%s: 0)",
		       su, policy_names[policy]);
	tap_ok(near(cm, n),
	       "client: %d lookup misses through NFS leave %lld on the client (want %d: lookupcache=all)",
	       n, cm, n);
	tap_ok(near(sm, policy == POLICY_NONE ? 0 : n),
	       "server: they leave %lld on the server (negdentry=%s: %d)",
	       sm, policy_names[policy], policy == POLICY_NONE ? 0 : n);

	/* the counts are taken; tidy up */
	for (i = 0; i < WORKERS; i++)
		rmdir(pathf(p, "%s/acct/w%d", srv, i));
	rmdir(pathf(p, "%s/acct", srv));
	return tap_exit();
}
