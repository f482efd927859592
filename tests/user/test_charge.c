// SPDX-License-Identifier: GPL-2.0
/*
 * module/charge.h in user space: ftlblk_charge(), mem_limit_mib's charge,
 * raced between two threads on real CPUs.
 *
 * The bug it is written against: a charge that adds first and takes a
 * refused charge back leaves *used above the limit for a moment, and a
 * charge that fits but lands in that moment is refused too (at
 * mem_limit_mib, a 4 KiB write that fits fails with ENOSPC because a
 * 1 MiB write beside it did not fit). The window is a few instructions,
 * too narrow for a guest test under TCG; here two threads hit it
 * millions of times a second.
 *
 * Prints TAP and "N passed, N failed".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "charge.h"

static int tests, failures;

static void check(bool good, const char *what)
{
	tests++;
	if (!good)
		failures++;
	printf("%sok %d - %s\n", good ? "" : "not ", tests, what);
}

/* ---- a small charge that fits beside a large one that never does ---- */

#define SMALL_ITERATIONS	2000000L

static atomic_long_t used;
static long limit;
static volatile bool small_done;
static pthread_barrier_t start;

struct result {
	long attempts;
	long granted;
};

/* Run @fa(@a) and @fb(@b) in two threads released at once; wait for both. */
static void race(void *(*fa)(void *), void *a, void *(*fb)(void *), void *b)
{
	pthread_t ta, tb;

	pthread_barrier_init(&start, NULL, 2);
	pthread_create(&ta, NULL, fa, a);
	pthread_create(&tb, NULL, fb, b);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	pthread_barrier_destroy(&start);
}

/* Charge one and give it back, SMALL_ITERATIONS times: each one fits. */
static void *small_charger(void *arg)
{
	struct result *r = arg;
	long i;

	pthread_barrier_wait(&start);
	for (i = 0; i < SMALL_ITERATIONS; i++) {
		r->attempts++;
		if (ftlblk_charge(&used, 1, limit)) {
			r->granted++;
			atomic_long_sub(1, &used);
		}
	}
	__atomic_store_n(&small_done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* Try to charge two, which never fit, until the small charger is done. */
static void *large_charger(void *arg)
{
	struct result *r = arg;

	pthread_barrier_wait(&start);
	while (!__atomic_load_n(&small_done, __ATOMIC_ACQUIRE)) {
		r->attempts++;
		if (ftlblk_charge(&used, 2, limit))
			r->granted++;
	}
	return NULL;
}

static void small_beside_large(void)
{
	struct result small = { 0 }, large = { 0 };
	char what[200];

	limit = 1000;
	atomic_long_set(&used, limit - 1);	/* room for one */
	small_done = false;
	race(small_charger, &small, large_charger, &large);

	snprintf(what, sizeof(what),
		 "room for 1: %ld charges of 1 all granted (%ld) beside %ld refused charges of 2",
		 small.attempts, small.granted, large.attempts);
	check(small.granted == small.attempts, what);
	check(large.granted == 0, "no charge of 2 granted with room for 1");
	/* Without overlap the check above proves nothing. */
	snprintf(what, sizeof(what),
		 "the threads overlapped: %ld charges of 2 during the %ld of 1 (at least 10000)",
		 large.attempts, small.attempts);
	check(large.attempts >= 10000, what);
	check(atomic_long_read(&used) == limit - 1,
	      "every charge given back: used is where it started");
}

/* ---- two threads fill the room: exactly to the limit ---- */

#define FILL_ROOM	1000000L

struct filler {
	long n;		/* charge size */
	long granted;	/* charges granted */
};

/* Charge @f->n until refused: then used + n > limit for good. */
static void *fill(void *arg)
{
	struct filler *f = arg;

	pthread_barrier_wait(&start);
	while (ftlblk_charge(&used, f->n, limit))
		f->granted++;
	return NULL;
}

static void fill_to_limit(void)
{
	struct filler ones = { 1, 0 }, threes = { 3, 0 };
	char what[200];

	limit = FILL_ROOM;
	atomic_long_set(&used, 0);
	race(fill, &ones, fill, &threes);

	/* The ones stop only when used == limit: nothing was refused early. */
	snprintf(what, sizeof(what),
		 "charges of 1 and 3 raced to fill %ld: used ends at the limit (%ld)",
		 FILL_ROOM, atomic_long_read(&used));
	check(atomic_long_read(&used) == limit, what);
	check(ones.granted + 3 * threes.granted == limit,
	      "the granted charges add up to what is used");
}

/* ---- single-threaded edges ---- */

static void edges(void)
{
	atomic_long_set(&used, 105);	/* above the limit (an overwrite) */
	check(!ftlblk_charge(&used, 1, 100), "above the limit: a charge of 1 is refused");
	check(atomic_long_read(&used) == 105, "and changes nothing");
	check(ftlblk_charge(&used, 5, 110), "with an allowance that covers it: granted");
	check(atomic_long_read(&used) == 110, "used is exactly the new limit");
	check(!ftlblk_charge(&used, 1, 110), "the next one is refused");
	atomic_long_set(&used, 0);
	check(!ftlblk_charge(&used, 1L << 40, 100), "a charge larger than the limit is refused");
	check(ftlblk_charge(&used, 100, 100), "a charge of exactly the limit is granted");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	edges();
	small_beside_large();
	fill_to_limit();
	printf("1..%d\n%d passed, %d failed\n", tests, tests - failures,
	       failures);
	return failures ? 1 : 0;
}
