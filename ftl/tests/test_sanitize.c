// SPDX-License-Identifier: GPL-2.0
/*
 * test_sanitize.c - ftl_secure_erase() (sanitize.c): after it no page
 * outside a bad block holds anything the range ever wrote - current copies,
 * and the stale ones overwrites, discards and relocations left - while every
 * other logical page keeps its data; open blocks holding copies are closed
 * and erased; blocks that cannot be erased keep their data and are
 * reported, never claimed erased. The shadow store (shadow.c) records the
 * lpn programmed into each physical page until its erase, as NAND's spare
 * area does, and checks every callback; with read_oob the core finds the
 * stale copies through that spare area instead of its reverse map.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "shadow.h"
#include "ok.h"

static u64 rng_state = 0x5a417eULL;

static void cfg_of(struct ftl_config *cfg, u64 lp, u32 ppb, u32 op)
{
	ftl_config_init(cfg, lp);
	cfg->pages_per_block = ppb;
	cfg->op_percent = op;
}

/*
 * Fill the device, then overwrite and discard [@lo, @hi) and write at
 * random elsewhere, so that the range has stale copies scattered over
 * many blocks, some moved by GC.
 */
static void age(struct shadow *sh, u64 lo, u64 hi)
{
	u64 lp = sh->geo.logical_pages, i, round;

	for (i = 0; i < lp; i++)
		OK(sh, shadow_write(sh, i));
	for (round = 0; round < 6; round++) {
		for (i = lo; i < hi; i++)
			OK(sh, shadow_write(sh, i));
		for (i = 0; i < lp; i++)
			OK(sh, shadow_write(sh, rnd_below(&rng_state, lp)));
	}
	OK(sh, shadow_discard(sh, lo, (hi - lo) / 2, false));
}

static void erase_range(bool oob)
{
	struct ftl_config cfg;
	struct ftl_sanitize res;
	struct ftl_stats st;
	struct shadow sh;
	u64 lpn;

	cfg_of(&cfg, 256, 8, 30);
	cfg.remanence = oob;	/* pages_stale checked both ways */
	assert_int_equal(shadow_init_mode(&sh, &cfg, oob), 0);
	age(&sh, 40, 60);
	/* The test can fail: stale copies of the range are in the flash. */
	assert_true(shadow_copies(&sh, 40, 20) > 20);
	OK(&sh, shadow_secure_erase(&sh, 40, 20, &res));
	assert_true(res.blocks_erased > 0);
	assert_int_equal(res.pages_left, 0);
	OK(&sh, shadow_verify(&sh));
	for (lpn = 0; lpn < cfg.logical_pages; lpn++)
		OK(&sh, shadow_read(&sh, lpn));
	ftl_get_stats(sh.ftl, &st);
	assert_int_equal(st.secure_erases, 1);
	assert_int_equal(st.secure_erase_blocks, res.blocks_erased);
	assert_int_equal(st.secure_erase_relocations, res.pages_relocated);
	assert_int_equal(st.secure_erase_pages_left, 0);
	/* The device goes on as before. */
	for (lpn = 0; lpn < 3 * cfg.logical_pages; lpn++)
		OK(&sh, shadow_write(&sh, rnd_below(&rng_state, cfg.logical_pages)));
	OK(&sh, shadow_fini(&sh));
}

static void test_range_reverse_map(void **state)
{
	(void)state;
	erase_range(false);
}

static void test_range_spare_area(void **state)
{
	(void)state;
	erase_range(true);
}

/* A whole-device secure erase leaves every block that held data erased. */
static void test_whole_device(void **state)
{
	struct ftl_config cfg;
	struct ftl_sanitize res;
	struct ftl_stats st;
	struct shadow sh;

	(void)state;
	cfg_of(&cfg, 256, 8, 30);
	assert_int_equal(shadow_init(&sh, &cfg), 0);
	age(&sh, 0, 100);
	OK(&sh, shadow_secure_erase(&sh, 0, cfg.logical_pages, &res));
	assert_int_equal(shadow_copies(&sh, 0, cfg.logical_pages), 0);
	ftl_get_stats(sh.ftl, &st);
	assert_int_equal(st.valid_pages, 0);
	assert_int_equal(st.free_blocks, sh.geo.physical_blocks);
	assert_int_equal(res.pages_relocated, 0);
	OK(&sh, shadow_fini(&sh));
}

/* Copies in the host's open block: it is closed, then erased. */
static void test_open_block(void **state)
{
	struct ftl_config cfg;
	struct ftl_sanitize res;
	struct shadow sh;

	(void)state;
	cfg_of(&cfg, 256, 8, 30);
	assert_int_equal(shadow_init(&sh, &cfg), 0);
	OK(&sh, shadow_write(&sh, 7));
	OK(&sh, shadow_write(&sh, 8));
	OK(&sh, shadow_write(&sh, 7));	/* a stale copy in the open block */
	assert_int_equal(shadow_copies(&sh, 7, 1), 2);
	OK(&sh, shadow_secure_erase(&sh, 7, 1, &res));
	assert_int_equal(res.blocks_erased, 1);
	assert_int_equal(res.pages_relocated, 1);	/* lpn 8 moved out */
	OK(&sh, shadow_read(&sh, 8));
	OK(&sh, shadow_verify(&sh));
	OK(&sh, shadow_fini(&sh));
}

/*
 * Blocks that cannot be erased keep their data: with erase failures, the
 * retired blocks' copies are reported as left, exactly (the shadow counts
 * the pages of bad blocks that hold the range).
 */
static void test_bad_blocks_keep_data(void **state)
{
	struct ftl_config cfg;
	struct ftl_sanitize res;
	struct ftl_stats st;
	struct shadow sh;
	u64 left = 0, run;

	(void)state;
	cfg_of(&cfg, 512, 8, 100);
	cfg.erase_fail_ppm = 10000;	/* 1 % of erases fail */
	cfg.fault_seed = 3;
	assert_int_equal(shadow_init(&sh, &cfg), 0);
	for (run = 0; run < 4 && !sh.read_only; run++) {
		age(&sh, 0, 64);
		OK(&sh, shadow_secure_erase(&sh, 0, 64, &res));
		left += res.pages_left;
	}
	ftl_get_stats(sh.ftl, &st);
	/* The test can fail: some copies were in blocks that went bad. */
	assert_false(sh.read_only);
	assert_true(st.bad_blocks > 0);
	assert_true(left > 0);
	assert_int_equal(st.secure_erase_pages_left, left);
	OK(&sh, shadow_verify(&sh));
	OK(&sh, shadow_fini(&sh));
}

/*
 * By windows of blocks, as the module bounds its lock holds, the result is
 * the same: no copy left, one secure erase counted.
 */
static void test_windows(void **state)
{
	struct ftl_config cfg;
	struct ftl_sanitize res;
	struct ftl_stats st;
	struct shadow sh;

	(void)state;
	cfg_of(&cfg, 256, 8, 30);
	cfg.remanence = 1;
	assert_int_equal(shadow_init(&sh, &cfg), 0);
	sh.se_window = 3;
	age(&sh, 40, 60);
	assert_true(shadow_copies(&sh, 40, 20) > 20);
	OK(&sh, shadow_secure_erase(&sh, 40, 20, &res));
	assert_true(res.blocks_erased > 0);
	OK(&sh, shadow_verify(&sh));
	ftl_get_stats(sh.ftl, &st);
	assert_int_equal(st.secure_erases, 1);
	assert_int_equal(st.secure_erase_blocks, res.blocks_erased);
	OK(&sh, shadow_fini(&sh));
}

/* ftl_page_state() tells what the spare areas (the shadow's) record. */
static void test_page_state(void **state)
{
	struct ftl_config cfg;
	struct shadow sh;
	u32 ppn, lpn, states[4] = { 0 };
	bool retired;

	(void)state;
	cfg_of(&cfg, 256, 8, 30);
	cfg.program_fail_ppm = 20000;
	assert_int_equal(shadow_init(&sh, &cfg), 0);
	age(&sh, 0, 30);
	for (ppn = 0; ppn < sh.geo.physical_pages; ppn++) {
		enum ftl_page_state ps = ftl_page_state(sh.ftl, ppn, &lpn,
							&retired);

		states[ps]++;
		assert_int_equal(retired, sh.bad[ppn / cfg.pages_per_block]);
		assert_int_equal(lpn, sh.written[ppn]);
		if (ps == FTL_PAGE_VALID)
			assert_int_equal(sh.l2p[lpn], ppn);
		if (ps == FTL_PAGE_STALE)
			assert_int_not_equal(sh.l2p[lpn], ppn);
		if (ps == FTL_PAGE_ERASED || ps == FTL_PAGE_FAILED)
			assert_int_equal(sh.written[ppn], FTL_UNMAPPED);
	}
	/* The test can fail: every state occurs. */
	assert_true(states[FTL_PAGE_ERASED] && states[FTL_PAGE_VALID] &&
		    states[FTL_PAGE_STALE] && states[FTL_PAGE_FAILED]);
	OK(&sh, shadow_fini(&sh));
}

/*
 * A store short of memory for stale data erases the stalest blocks: each
 * call removes what it says, until no closed block holds a stale page;
 * no data is lost.
 */
static void test_reclaim_stale(void **state)
{
	struct ftl_config cfg;
	struct ftl_stats st;
	struct shadow sh;
	s64 erased, total = 0;
	u64 before, calls = 0, lpn;

	(void)state;
	cfg_of(&cfg, 256, 8, 30);
	cfg.remanence = 1;
	assert_int_equal(shadow_init(&sh, &cfg), 0);
	age(&sh, 0, 30);
	ftl_get_stats(sh.ftl, &st);
	before = st.pages_stale;
	assert_true(before > 2 * cfg.pages_per_block);
	do {
		u64 was = st.pages_stale;

		OK(&sh, shadow_reclaim_stale(&sh, &erased));
		assert_true(erased >= 0);
		ftl_get_stats(sh.ftl, &st);
		assert_int_equal(was - st.pages_stale, erased);
		total += erased;
		calls++;
	} while (erased && calls < sh.geo.physical_blocks);
	assert_true(erased == 0);
	/* Only the two open blocks may still hold stale pages. */
	assert_true(st.pages_stale <= 2 * cfg.pages_per_block);
	assert_int_equal(before - st.pages_stale, total);
	OK(&sh, shadow_verify(&sh));
	for (lpn = 0; lpn < cfg.logical_pages; lpn++)
		OK(&sh, shadow_read(&sh, lpn));
	OK(&sh, shadow_fini(&sh));
}

static void test_errors(void **state)
{
	struct ftl_config cfg;
	struct ftl_stats before, after;
	struct shadow sh;

	(void)state;
	cfg_of(&cfg, 256, 8, 30);
	assert_int_equal(shadow_init(&sh, &cfg), 0);
	age(&sh, 0, 10);
	ftl_get_stats(sh.ftl, &before);
	assert_int_equal(ftl_secure_erase(sh.ftl, 250, 7, NULL), -ERANGE);
	assert_int_equal(ftl_secure_erase(sh.ftl, 257, 0, NULL), -ERANGE);
	ftl_get_stats(sh.ftl, &after);
	assert_memory_equal(&before, &after, sizeof(before));
	OK(&sh, shadow_verify(&sh));
	/* count 0: nothing to erase, nothing erased */
	assert_int_equal(ftl_secure_erase(sh.ftl, 0, 0, NULL), 0);
	OK(&sh, shadow_fini(&sh));
}

/*
 * A worn-out, read-only FTL changes nothing for a secure erase: the erase
 * half refuses with -EROFS before it relocates or erases a block, and
 * every counter stays. Erase faults make it read-only; page 0 has stale
 * copies left by overwrites and a discard.
 */
static void test_read_only(void **state)
{
	struct ftl_stats before, after;
	struct ftl_sanitize res = { 0 };
	struct ftl_config cfg;
	u64 rng = 3, lp = 4096, i;
	struct ftl *ftl;
	u32 ppn;
	int err;

	(void)state;
	cfg_of(&cfg, lp, 16, 25);
	cfg.remanence = 1;
	cfg.erase_fail_ppm = 20000;
	cfg.wl_threshold = 0;
	cfg.gc_low_blocks = 2;
	cfg.gc_high_blocks = 12;
	ftl = ftl_create(&cfg, NULL, NULL, &err);
	assert_non_null(ftl);
	for (i = 0; i < lp; i++)
		assert_int_equal(ftl_write(ftl, i, &ppn), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(ftl_write(ftl, 0, &ppn), 0);
	assert_int_equal(ftl_discard(ftl, 0, 1), 1);
	for (i = 0; i < 10000000 && !ftl_read_only(ftl); i++)
		ftl_write(ftl, 1 + rnd_below(&rng, lp - 1), &ppn);
	assert_true(ftl_read_only(ftl));
	ftl_get_stats(ftl, &before);
	assert_true(before.pages_stale > 0);
	assert_int_equal(ftl_secure_erase_blocks(ftl, 0, lp, 0, UINT32_MAX, &res),
			 -EROFS);
	ftl_get_stats(ftl, &after);
	assert_memory_equal(&before, &after, sizeof(before));
	assert_int_equal(res.blocks_erased + res.pages_relocated + res.pages_left, 0);
	assert_int_equal(ftl_secure_erase(ftl, 0, lp, NULL), -EROFS);
	ftl_destroy(ftl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_range_reverse_map),
		cmocka_unit_test(test_range_spare_area),
		cmocka_unit_test(test_whole_device),
		cmocka_unit_test(test_open_block),
		cmocka_unit_test(test_bad_blocks_keep_data),
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_page_state),
		cmocka_unit_test(test_reclaim_stale),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_read_only),
	};

	return cmocka_run_group_tests_name("sanitize", tests, NULL, NULL);
}
