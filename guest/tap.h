/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP 13 helpers for the guest-side tests, in the spirit of
 * kselftest.h: each test prints "ok N - name" or "not ok N - name",
 * "# SKIP reason" for what cannot run, and "# metric NAME VALUE" lines that
 * the host collects into its comparison tables.
 */
#ifndef NDT_TAP_H
#define NDT_TAP_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The test count and the failures: one pair per program, also for one
 * built from several files (stress/ndstress), hence weak rather than
 * static.
 */
__attribute__((weak)) int tap_num, tap_failed;

static inline void tap_plan(int n)
{
	printf("TAP version 13\n1..%d\n", n);
	fflush(stdout);
}

static inline void tap_vresult(const char *status, const char *directive,
			       const char *fmt, va_list ap)
{
	printf("%s %d - ", status, ++tap_num);
	vprintf(fmt, ap);
	if (directive)
		printf(" # %s", directive);
	putchar('\n');
	fflush(stdout);
}

/* One test result; returns ok so callers can chain diagnostics. */
static inline __attribute__((format(printf, 2, 3)))
int tap_ok(int ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(ok ? "ok" : "not ok", NULL, fmt, ap);
	va_end(ap);
	if (!ok)
		tap_failed++;
	return ok;
}

static inline __attribute__((format(printf, 2, 3)))
void tap_skip(const char *reason, const char *fmt, ...)
{
	char directive[256];
	va_list ap;

	snprintf(directive, sizeof(directive), "SKIP %s", reason);
	va_start(ap, fmt);
	tap_vresult("ok", directive, fmt, ap);
	va_end(ap);
}

static inline __attribute__((format(printf, 1, 2)))
void tap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* A number for the host's tables: "# metric NAME VALUE". */
static inline void tap_metric(const char *name, long long value)
{
	printf("# metric %s %lld\n", name, value);
	fflush(stdout);
}

/* A setup step that must work, or the whole test is meaningless. */
static inline __attribute__((format(printf, 2, 3), noreturn))
void tap_bail(int err, const char *fmt, ...)
{
	va_list ap;

	printf("Bail out! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (err)
		printf(": %s", strerror(err));
	putchar('\n');
	exit(2);
}

static inline int tap_exit(void)
{
	return tap_failed ? 1 : 0;
}

/*
 * A plan printed at the end, for tests whose number of cases depends on
 * the kernel and the variant: tap_begin() first, tap_end() last (a test
 * that dies before it has no plan, which counts as a failure).
 */
static inline void tap_begin(void)
{
	printf("TAP version 13\n");
	fflush(stdout);
}

/* The plan, last: every result printed so far. */
static inline int tap_end(void)
{
	printf("1..%d\n", tap_num);
	fflush(stdout);
	return tap_exit();
}

#endif
