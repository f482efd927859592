// SPDX-License-Identifier: GPL-2.0
/*
 * test_gc.c - garbage collection and wear leveling seen through the FTL
 * core's API (gc.c, wear.c): GC runs when it must, never copies discarded
 * or overwritten pages, picks the victim each policy promises in a
 * scripted history; static wear leveling on and off; the policy names.
 * Under the shadow data store (shadow.c), as test_api.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "shadow.h"
#include "ok.h"
#include "api.h"

static u64 rng_state = 0x7e57a91ULL;

static void test_gc_happens(void **state)
{
	enum ftl_gc_policy p;

	(void)state;
	for (p = 0; p < FTL_GC_NR_POLICIES; p++) {
		struct ftl_config cfg;
		struct ftl_stats st;
		struct shadow sh;
		u64 i, sum = 0;

		small_cfg(&cfg, 8, 256, 20, p);
		sh_init(&sh, &cfg);
		for (i = 0; i < 256; i++)
			OK(&sh, shadow_write(&sh, i));
		for (i = 0; i < 4 * 256; i++) {
			OK(&sh, shadow_write(&sh, rnd_below(&rng_state, 256)));
			OK(&sh, shadow_check_stats(&sh));
		}
		OK(&sh, shadow_verify(&sh));
		ftl_get_stats(sh.ftl, &st);
		assert_int_equal(st.host_pages_written, 5 * 256);
		assert_true(st.erases > 0);
		assert_true(st.gc_runs > 0);
		assert_true(st.gc_relocations > 0);
		assert_true(st.nand_pages_written > st.host_pages_written);
		assert_int_equal(st.nand_pages_written,
				 st.host_pages_written + st.gc_relocations +
				 st.wl_relocations);
		/* erased callbacks, per-block counts and stats agree */
		assert_int_equal(sh.erases_total, st.erases);
		for (i = 0; i < sh.geo.physical_blocks; i++)
			sum += ftl_block_erase_count(sh.ftl, i);
		assert_int_equal(sum, st.erases);
		assert_int_equal(st.erase_mean_milli,
				 sum * 1000 / sh.geo.physical_blocks);
		assert_true(st.erase_max >= st.erase_min);
		assert_true(st.erase_max > 0);
		assert_int_equal(st.waf_milli,
				 st.nand_pages_written * 1000 /
				 st.host_pages_written);
		assert_true(st.waf_milli > 1000);
		assert_true(st.free_blocks > 0 &&
			    st.free_blocks < sh.geo.physical_blocks);
		sh_fini(&sh);
	}
}

/*
 * Discarded data is never copied: fill the device, discard it all, write
 * it again in order. Every victim then holds no valid page, so whatever
 * the policy, GC erases blocks without a single relocation.
 */
static void test_gc_skips_discarded(void **state)
{
	enum ftl_gc_policy p;

	(void)state;
	for (p = 0; p < FTL_GC_NR_POLICIES; p++) {
		struct ftl_config cfg;
		struct ftl_stats st;
		struct shadow sh;
		u64 i, round;

		small_cfg(&cfg, 8, 256, 20, p);
		cfg.wl_threshold = 0;
		sh_init(&sh, &cfg);
		for (round = 0; round < 4; round++) {
			for (i = 0; i < 256; i++)
				OK(&sh, shadow_write(&sh, i));
			OK(&sh, shadow_discard(&sh, 0, 256, false));
		}
		OK(&sh, shadow_verify(&sh));
		ftl_get_stats(sh.ftl, &st);
		assert_true(st.gc_runs > 0);
		assert_int_equal(st.gc_relocations, 0);
		assert_int_equal(st.nand_pages_written, 4 * 256);
		sh_fini(&sh);
	}
}

/*
 * Same with overwrites and partial discards mixed in: the shadow fails on
 * any move whose source is not the current copy of its logical page. Half
 * of every block is discarded, a quarter overwritten, then the rest is
 * churned so that GC must collect those blocks.
 */
static void test_gc_skips_dead_pages(void **state)
{
	enum ftl_gc_policy p;

	(void)state;
	for (p = 0; p < FTL_GC_NR_POLICIES; p++) {
		struct ftl_config cfg;
		struct ftl_stats st;
		struct shadow sh;
		u64 i;

		small_cfg(&cfg, 4, 128, 25, p);
		sh_init(&sh, &cfg);
		for (i = 0; i < 128; i++)
			OK(&sh, shadow_write(&sh, i));
		for (i = 0; i < 128; i += 2)
			OK(&sh, shadow_discard(&sh, i, 1, false));
		for (i = 1; i < 128; i += 4)
			OK(&sh, shadow_write(&sh, i));
		for (i = 0; i < 10 * 128; i++) {
			u64 lpn = rnd_below(&rng_state, 64) * 2 + 1;

			OK(&sh, shadow_write(&sh, lpn));
			if (i % 16 == 0)
				OK(&sh, shadow_discard(&sh, lpn, 1, false));
		}
		OK(&sh, shadow_verify(&sh));
		ftl_get_stats(sh.ftl, &st);
		assert_true(st.gc_runs > 0);
		assert_true(st.gc_relocations > 0);
		/* at most the 64 odd pages are ever live */
		assert_true(st.valid_pages <= 64);
		for (i = 0; i < 128; i++)
			OK(&sh, shadow_read(&sh, i));
		sh_fini(&sh);
	}
}

/*
 * Each policy picks its own victim. A scripted history (ppb 4, 8 logical
 * blocks, 8 spare, GC when fewer than 6 blocks are free) leaves, when the
 * first GC runs at the 45th program:
 *   A  oldest closed block, all 4 pages valid
 *   B  next oldest, 2 valid          (and four younger blocks with 2 valid)
 *   Y  block 6, 1 valid: three pages discarded just before the GC
 *   three newest blocks, 4 valid
 * Greedy must take Y (fewest valid), FIFO must take A (closed first),
 * cost-benefit must take B: with age the programs since a block's valid
 * count last changed, age * (1 - u) / (1 + u) is 0 for A, 12 * 2 / 6 for
 * B (last invalidated at the 34th program), 1 * 3 / 5 for Y, and smaller
 * for the other blocks with 2 valid, invalidated later than B.
 */
static void test_gc_policy_victims(void **state)
{
	enum ftl_gc_policy p;

	(void)state;
	for (p = 0; p < FTL_GC_NR_POLICIES; p++) {
		static const u64 drain[] = {
			4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 28, 29,
		};
		struct ftl_config cfg;
		struct shadow sh;
		u32 a, b, y, want, want_reloc;
		u64 i;

		small_cfg(&cfg, 4, 32, 100, p);
		cfg.wl_threshold = 0;
		cfg.gc_low_blocks = 6;
		cfg.gc_high_blocks = 6;
		sh_init(&sh, &cfg);
		for (i = 0; i < 32; i++)
			OK(&sh, shadow_write(&sh, i));
		for (i = 0; i < sizeof(drain) / sizeof(drain[0]); i++)
			OK(&sh, shadow_write(&sh, drain[i]));
		OK(&sh, shadow_discard(&sh, 24, 3, false));
		assert_int_equal(sh.collected_total, 0);
		a = ftl_lookup(sh.ftl, 0) / 4;
		b = ftl_lookup(sh.ftl, 6) / 4;
		y = ftl_lookup(sh.ftl, 27) / 4;
		assert_int_not_equal(a, b);
		assert_int_not_equal(b, y);
		switch (p) {
		case FTL_GC_GREEDY:
			want = y;
			want_reloc = 1;
			break;
		case FTL_GC_FIFO:
			want = a;
			want_reloc = 4;
			break;
		default:
			want = b;
			want_reloc = 2;
			break;
		}
		OK(&sh, shadow_write(&sh, 0));
		assert_true(sh.collected_total > 0);
		if (sh.first_collected != want || sh.first_relocated != want_reloc)
			fail_msg("%s collected block %u (%u relocated), expected %u (%u); A=%u B=%u Y=%u",
				 ftl_policy_name(p), sh.first_collected,
				 sh.first_relocated, want, want_reloc, a, b, y);
		OK(&sh, shadow_verify(&sh));
		sh_fini(&sh);
	}
}

/*
 * Static wear leveling: cold data written once, hot pages churned. With a
 * low threshold the core relocates cold blocks (collected with
 * wear_leveling true); with threshold 0 it never does.
 */
static void test_wear_leveling_switch(void **state)
{
	u32 thr[] = { 2, 0 };
	size_t t;

	(void)state;
	for (t = 0; t < 2; t++) {
		struct ftl_config cfg;
		struct ftl_stats st;
		struct shadow sh;
		u64 i;

		small_cfg(&cfg, 8, 512, 10, FTL_GC_GREEDY);
		cfg.wl_threshold = thr[t];
		sh_init(&sh, &cfg);
		for (i = 0; i < 512; i++)
			OK(&sh, shadow_write(&sh, i));
		for (i = 0; i < 40 * 512; i++)
			OK(&sh, shadow_write(&sh, rnd_below(&rng_state, 32)));
		OK(&sh, shadow_verify(&sh));
		ftl_get_stats(sh.ftl, &st);
		if (thr[t]) {
			assert_true(st.wl_runs > 0);
			assert_true(st.wl_relocations > 0);
			assert_int_equal(sh.n.wl_runs, st.wl_runs);
		} else {
			assert_int_equal(st.wl_runs, 0);
			assert_int_equal(st.wl_relocations, 0);
		}
		sh_fini(&sh);
	}
}

static void test_policy_names(void **state)
{
	static const char *const names[] = {
		"greedy", "fifo", "cost-benefit",
	};
	static const char *const bad[] = {
		"", "\n", "greed", "greedyy", "greedy ", " greedy", "fifo\n\n",
		"fifo\r\n", "cost", "cost-benefit2", "costbenefit",
		"cost_benefit", "lru", "greedy\nx",
	};
	char buf[32];
	int i;

	(void)state;
	assert_int_equal(FTL_GC_NR_POLICIES, 3);
	for (i = 0; i < FTL_GC_NR_POLICIES; i++) {
		assert_non_null(ftl_policy_name(i));
		assert_string_equal(ftl_policy_name(i), names[i]);
		assert_int_equal(ftl_policy_parse(names[i]), i);
		assert_int_equal(ftl_policy_parse(ftl_policy_name(i)), i);
		snprintf(buf, sizeof(buf), "%s\n", names[i]);
		assert_int_equal(ftl_policy_parse(buf), i);
	}
	assert_int_equal(ftl_policy_parse("greedy"), FTL_GC_GREEDY);
	assert_int_equal(ftl_policy_parse("fifo"), FTL_GC_FIFO);
	assert_int_equal(ftl_policy_parse("cost-benefit"), FTL_GC_COST_BENEFIT);
	assert_null(ftl_policy_name(FTL_GC_NR_POLICIES));
	assert_null(ftl_policy_name((enum ftl_gc_policy)99));
	assert_null(ftl_policy_name((enum ftl_gc_policy)-1));
	for (i = 0; i < (int)(sizeof(bad) / sizeof(bad[0])); i++)
		if (ftl_policy_parse(bad[i]) != -EINVAL)
			fail_msg("policy \"%s\" parsed as %d", bad[i],
				 ftl_policy_parse(bad[i]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gc_happens),
		cmocka_unit_test(test_gc_skips_discarded),
		cmocka_unit_test(test_gc_skips_dead_pages),
		cmocka_unit_test(test_gc_policy_victims),
		cmocka_unit_test(test_wear_leveling_switch),
		cmocka_unit_test(test_policy_names),
	};

	return cmocka_run_group_tests_name("gc", tests, NULL, NULL);
}
