// SPDX-License-Identifier: GPL-2.0
/*
 * test_wear.c - the free pool, checked block by block: dynamic wear
 * leveling and the GC watermarks.
 *
 * The core promises that a host write which needs a new block gets the
 * least worn free block (the free pool is a min-heap on erase counts). The
 * other tests only see the consequences in aggregate, which a core that
 * opens the most worn block instead still passes (a mutant of
 * ftl_open_free_block() did, see tests/mutants/). Here every new host block is
 * compared with the free pool at that moment: the blocks with no page
 * programmed since their last erase (the shadow tracks programs).
 *
 * Likewise GC must go on until gc_high_blocks are free, not stop at
 * gc_low_blocks (a mutant of ftl_gc_run() that did passed test_api's watermark
 * test, which only checks that GC ran): after every write that collected,
 * the pool holds at least gc_high_blocks - 1 blocks (the host took one).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "shadow.h"
#include "ok.h"

static u64 rng_state = 0x3ea41e7ULL;

/* No page of block @b programmed since its last erase: it is free. */
static bool block_free(const struct shadow *sh, u32 b)
{
	u32 ppb = sh->geo.pages_per_block, i;

	for (i = 0; i < ppb; i++)
		if (sh->programmed[(u64)b * ppb + i])
			return false;
	return true;
}

/*
 * Host writes that open a block must open one whose erase count is the
 * smallest in the free pool. @hot_lpns: writes go to the first hot_lpns
 * logical pages (after a full fill), which makes erase counts uneven; the
 * GC watermarks @gc_low..@gc_high make GC free blocks in bursts, so the
 * pool holds several blocks to choose from.
 */
static void check_host_opens(enum ftl_gc_policy policy, u32 ppb, u64 lp,
			     u32 op, u32 gc_low, u32 gc_high, u64 hot_lpns,
			     u64 writes)
{
	struct ftl_config cfg;
	struct shadow sh;
	u64 i, opens = 0, decided = 0;
	int err;

	ftl_config_init(&cfg, lp);
	cfg.pages_per_block = ppb;
	cfg.op_percent = op;
	cfg.gc_policy = policy;
	cfg.wl_threshold = 0;	/* static wear leveling off: only dynamic */
	/* GC in bursts leaves several free blocks of different wear. */
	cfg.gc_low_blocks = gc_low;
	cfg.gc_high_blocks = gc_high;
	err = shadow_init(&sh, &cfg);
	if (err)
		fail_msg("shadow_init: %d", err);
	for (i = 0; i < lp; i++)
		OK(&sh, shadow_write(&sh, i));
	for (i = 0; i < writes; i++) {
		u64 lpn = rnd_below(&rng_state, hot_lpns);
		u32 ppn, b, o, mine, least = U32_MAX, most = 0;

		OK(&sh, shadow_write(&sh, lpn));
		ppn = ftl_lookup(sh.ftl, lpn);
		if (ppn % ppb)
			continue;	/* not the first page of a new block */
		b = ppn / ppb;
		mine = ftl_block_erase_count(sh.ftl, b);
		for (o = 0; o < sh.geo.physical_blocks; o++) {
			u32 e;

			if (o == b || !block_free(&sh, o))
				continue;
			e = ftl_block_erase_count(sh.ftl, o);
			least = e < least ? e : least;
			most = e > most ? e : most;
		}
		opens++;
		if (least != U32_MAX && most > least)
			decided++;	/* a wrong choice was possible */
		if (least != U32_MAX && mine > least)
			fail_msg("write %llu (lpn %llu) opened block %u with %u erases, a free block has %u",
				 (unsigned long long)i, (unsigned long long)lpn, b,
				 mine, least);
	}
	OK(&sh, shadow_verify(&sh));
	OK(&sh, shadow_fini(&sh));
	print_message("%llu host blocks opened, %llu with free blocks of different wear\n",
		      (unsigned long long)opens, (unsigned long long)decided);
	/* The workload must have offered a choice, or nothing was shown. */
	assert_true(opens > 50);
	assert_true(decided > 10);
}

static void test_host_opens_least_worn_greedy(void **state)
{
	(void)state;
	check_host_opens(FTL_GC_GREEDY, 8, 512, 25, 4, 10, 64, 30 * 512);
}

static void test_host_opens_least_worn_fifo(void **state)
{
	(void)state;
	check_host_opens(FTL_GC_FIFO, 4, 256, 40, 3, 8, 256, 40 * 256);
}

static void test_host_opens_least_worn_cost_benefit(void **state)
{
	(void)state;
	check_host_opens(FTL_GC_COST_BENEFIT, 16, 1024, 20, 4, 9, 100, 20 * 1024);
}

/*
 * GC keeps the free pool at gc_low_blocks or above, and between the
 * watermarks each write that collects gains one block on the host (two
 * over what it found, one of which the host block it opens takes), up to
 * gc_high_blocks, so that one write never does the whole climb. After a
 * write that collected, free_after + 1 >= min(high, max(low, before + 2)).
 * Also, the pool must actually climb to the high watermark, and no write
 * may collect more than that needs (a bounded amount of work per write).
 */
static void check_watermarks(enum ftl_gc_policy policy, u32 low, u32 high)
{
	struct ftl_config cfg;
	struct ftl_stats st;
	struct shadow sh;
	u64 i, runs = 0, gcs = 0, reached_high = 0;
	int err;

	ftl_config_init(&cfg, 256);
	cfg.pages_per_block = 8;
	cfg.op_percent = 30;	/* 10 spare blocks */
	cfg.gc_policy = policy;
	cfg.gc_low_blocks = low;
	cfg.gc_high_blocks = high;
	err = shadow_init(&sh, &cfg);
	if (err)
		fail_msg("shadow_init: %d", err);
	for (i = 0; i < 30 * 256; i++) {
		u64 before, want;

		ftl_get_stats(sh.ftl, &st);
		before = st.free_blocks;
		OK(&sh, shadow_write(&sh, i < 256 ? i : rnd_below(&rng_state, 256)));
		ftl_get_stats(sh.ftl, &st);
		if (st.free_blocks + 1 < low)
			fail_msg("write %llu: %llu free blocks, below gc_low_blocks %u - 1",
				 (unsigned long long)i,
				 (unsigned long long)st.free_blocks, low);
		if (st.gc_runs == runs)
			continue;
		/* Each victim frees at most one block: free rises in steps. */
		if (st.gc_runs - runs > 1 && st.free_blocks > before + 1 &&
		    st.free_blocks >= low)
			fail_msg("write %llu collected %llu blocks and left %llu free (had %llu): more than it needed",
				 (unsigned long long)i,
				 (unsigned long long)(st.gc_runs - runs),
				 (unsigned long long)st.free_blocks,
				 (unsigned long long)before);
		runs = st.gc_runs;
		gcs++;
		want = before + 2 > low ? before + 2 : low;
		want = want < high ? want : high;
		if (st.free_blocks + 1 < want)
			fail_msg("write %llu collected, %llu free blocks before and %llu after: GC stopped below %llu",
				 (unsigned long long)i, (unsigned long long)before,
				 (unsigned long long)st.free_blocks,
				 (unsigned long long)want);
		reached_high += st.free_blocks + 1 >= high;
	}
	OK(&sh, shadow_verify(&sh));
	OK(&sh, shadow_fini(&sh));
	assert_true(gcs > 20);
	if (high > low && reached_high < 5)
		fail_msg("free pool reached gc_high_blocks %u only %llu times",
			 high, (unsigned long long)reached_high);
}

static void test_gc_reaches_high_watermark(void **state)
{
	(void)state;
	check_watermarks(FTL_GC_GREEDY, 3, 7);
	check_watermarks(FTL_GC_FIFO, 2, 6);
	check_watermarks(FTL_GC_COST_BENEFIT, 4, 8);
	check_watermarks(FTL_GC_GREEDY, 2, 2);
}

/*
 * Static wear leveling's erase may retire a block and leave too few spare
 * blocks: the write it ran for then fails with -EROFS, as every later one.
 * No write succeeds on a read-only FTL. Erase faults at 3 % with a
 * threshold of 1 make that happen inside a wear leveling call for some of
 * 200 seeds (11 here), which the test requires.
 */
static void test_read_only_in_wear_leveling(void **state)
{
	u64 seed, in_wl = 0, lp = 2048, i;

	(void)state;
	for (seed = 1; seed <= 200; seed++) {
		struct ftl_config cfg;
		struct ftl_stats st;
		u64 rng = seed, wl;
		struct ftl *ftl;
		u32 ppn;
		int err;

		ftl_config_init(&cfg, lp);
		cfg.pages_per_block = 8;
		cfg.op_percent = 30;
		cfg.wl_threshold = 1;
		cfg.erase_fail_ppm = 30000;
		cfg.fault_seed = seed;
		cfg.gc_low_blocks = 2;
		cfg.gc_high_blocks = 8;
		ftl = ftl_create(&cfg, NULL, NULL, &err);
		assert_non_null(ftl);
		for (i = 0; i < lp; i++)
			assert_int_equal(ftl_write(ftl, i, &ppn), 0);
		/* A hot quarter: static wear leveling has cold blocks to move. */
		for (i = 0; i < 10000000; i++) {
			ftl_get_stats(ftl, &st);
			wl = st.wl_runs;
			err = ftl_write(ftl, rnd_below(&rng, lp / 4), &ppn);
			if (err) {
				assert_int_equal(err, -EROFS);
				ftl_get_stats(ftl, &st);
				in_wl += st.wl_runs != wl;
				break;
			}
			if (ftl_read_only(ftl))
				fail_msg("seed %llu: write %llu succeeded and left the FTL read-only",
					 (unsigned long long)seed,
					 (unsigned long long)i);
		}
		assert_true(ftl_read_only(ftl));
		ftl_destroy(ftl);
	}
	assert_true(in_wl > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_opens_least_worn_greedy),
		cmocka_unit_test(test_host_opens_least_worn_fifo),
		cmocka_unit_test(test_host_opens_least_worn_cost_benefit),
		cmocka_unit_test(test_gc_reaches_high_watermark),
		cmocka_unit_test(test_read_only_in_wear_leveling),
	};

	return cmocka_run_group_tests_name("wear", tests, NULL, NULL);
}
