// SPDX-License-Identifier: GPL-2.0
/*
 * ndhog: memory pressure without the OOM killer.
 *
 *   ndhog FLOOR_MIB [READY_FILE]
 *
 * Maps and touches anonymous memory in 4 MiB chunks until MemAvailable is
 * down to FLOOR_MIB, creates READY_FILE, and then keeps MemAvailable at
 * the floor until SIGTERM: it takes more when the system frees something
 * and gives back when it drops below, and every second it releases and
 * retouches a tenth of what it holds.  Page cache, dentries and inodes
 * are reclaimed all the time (kswapd and direct reclaim, with the dcache
 * and inode shrinkers), but never to the point of an OOM kill, which would
 * print a stack trace that the harness counts as a failure.  Prints the
 * number of chunks allocated and released and the peak it held.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define CHUNK (4L << 20)
#define MAXCHUNK 4096

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static long mem_available_mib(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb / 1024;
}

int main(int argc, char **argv)
{
	static void *chunk[MAXCHUNK];
	long floor_mib, allocs = 0, frees = 0, peak = 0, it = 0, avail;
	int n = 0, i, ready = 0;
	FILE *f;

	if (argc < 2) {
		fprintf(stderr, "usage: ndhog FLOOR_MIB [READY_FILE]\n");
		return 2;
	}
	floor_mib = atol(argv[1]);
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	/* if anything is to be killed, let it be the hog */
	f = fopen("/proc/self/oom_score_adj", "w");
	if (f) {
		fputs("1000", f);
		fclose(f);
	}
	while (!stop) {
		avail = mem_available_mib();
		if (avail - CHUNK / (1 << 20) >= floor_mib && n < MAXCHUNK) {
			chunk[n] = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (chunk[n] == MAP_FAILED)
				break;
			memset(chunk[n], 0x5a, CHUNK);
			n++;
			allocs++;
			if (n > peak)
				peak = n;
			continue;
		}
		if (avail < floor_mib && n > 0) {
			munmap(chunk[--n], CHUNK);
			frees++;
			continue;
		}
		if (!ready && argc > 2) {
			f = fopen(argv[2], "w");
			if (f)
				fclose(f);
			ready = 1;
		}
		/* at the floor: churn a tenth of it now and then */
		if (++it % 100 == 0) {
			for (i = 0; i < n / 10; i++) {
				munmap(chunk[--n], CHUNK);
				frees++;
			}
		}
		usleep(10000);
	}
	for (i = 0; i < n; i++)
		munmap(chunk[i], CHUNK);
	printf("ndhog: %ld chunks of 4 MiB allocated, %ld released, peak %ld MiB held, "
	       "floor %ld MiB\n", allocs, frees, peak * (CHUNK >> 20), floor_mib);
	return 0;
}
