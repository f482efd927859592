// SPDX-License-Identifier: GPL-2.0
/*
 * wakelat SECONDS: sleep 1 ms at a time for SECONDS and print the longest
 * time one of those sleeps overran, in microseconds, as "max_us N
 * wakeups N". Pinned to the CPU of a kernel loop (taskset), it measures
 * how long that loop kept the CPU without rescheduling. Exit status 0,
 * or 2 on bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000LL + t.tv_nsec / 1000;
}

int main(int argc, char **argv)
{
	struct timespec ms = { 0, 1000000 };
	long long end, t0, late, max = 0;
	long wakeups = 0;

	if (argc != 2 || atoi(argv[1]) <= 0) {
		fprintf(stderr, "usage: wakelat SECONDS\n");
		return 2;
	}
	end = now_us() + atoi(argv[1]) * 1000000LL;
	do {
		t0 = now_us();
		nanosleep(&ms, NULL);
		late = now_us() - t0 - 1000;
		if (late > max)
			max = late;
		wakeups++;
	} while (now_us() < end);
	printf("max_us %lld wakeups %ld\n", max, wakeups);
	return 0;
}
