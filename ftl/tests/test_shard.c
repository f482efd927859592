// SPDX-License-Identifier: GPL-2.0
/*
 * test_shard.c - a device of independent FTL instances (shard.h): the
 * dealing of logical pages is a bijection with the shards' own pages, a
 * shard's configuration is its share, and the summed statistics are what
 * the shards' add up to, on shadowed FTLs under random traffic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "shard.h"
#include "tests/shadow.h"

/* Every device page lands on exactly one shard page, and back. */
static void check_dealing(u32 nr, u32 stripe, u64 total)
{
	struct ftl_shards s = { .nr = nr, .stripe = stripe };
	struct ftl_config whole, part;
	u64 pages[FTL_MAX_SHARDS], sum = 0, lpn, local;
	u8 *seen[FTL_MAX_SHARDS];
	u32 i, shard;

	ftl_config_init(&whole, total);
	whole.pages_per_block = stripe;
	for (i = 0; i < nr; i++) {
		assert_int_equal(ftl_shard_config(&whole, &s, i, &part), 0);
		assert_int_equal(part.fault_seed, whole.fault_seed + i);
		assert_int_equal(part.op_percent, whole.op_percent);
		pages[i] = part.logical_pages;
		sum += pages[i];
		seen[i] = calloc(pages[i], 1);
		assert_non_null(seen[i]);
	}
	assert_int_equal(sum, total);
	for (lpn = 0; lpn < total; lpn++) {
		u64 run = ftl_shard_run(&s, lpn);

		shard = ftl_shard_of(&s, lpn, &local);
		assert_true(shard < nr);
		assert_true(local < pages[shard]);
		assert_int_equal(seen[shard][local], 0);
		seen[shard][local] = 1;
		assert_int_equal(ftl_shard_host_lpn(&s, shard, local), lpn);
		/* A run stays in the shard, consecutively; the next page leaves. */
		assert_true(run >= 1);
		if (nr > 1) {
			u64 l2;

			assert_true(run <= stripe);
			if (run > 1) {
				assert_int_equal(ftl_shard_of(&s, lpn + 1, &l2), shard);
				assert_int_equal(l2, local + 1);
			} else {
				assert_int_not_equal(ftl_shard_of(&s, lpn + 1, &l2),
						     shard);
			}
		}
	}
	for (i = 0; i < nr; i++)
		free(seen[i]);
}

static void test_dealing(void **state)
{
	(void)state;
	check_dealing(1, 64, 1000);
	check_dealing(2, 64, 64 * 2 * 10);
	check_dealing(2, 64, 64 * 2 * 10 + 100);	/* shard 1 short */
	check_dealing(3, 16, 16 * 3 * 7 + 40);		/* one partial stripe */
	check_dealing(4, 256, 65536);
	check_dealing(7, 5, 5 * 7 * 3 + 34);
}

static void test_one_shard_is_the_device(void **state)
{
	struct ftl_shards s = { .nr = 1, .stripe = 256 };
	struct ftl_config whole, part;
	u64 local;

	(void)state;
	ftl_config_init(&whole, 12345);
	whole.fault_seed = 99;
	assert_int_equal(ftl_shard_config(&whole, &s, 0, &part), 0);
	assert_memory_equal(&whole, &part, sizeof(whole));
	assert_int_equal(ftl_shard_of(&s, 12344, &local), 0);
	assert_int_equal(local, 12344);
	assert_int_equal(ftl_shard_run(&s, 7), U64_MAX);
}

static void test_empty_shard_refused(void **state)
{
	struct ftl_shards s = { .nr = 4, .stripe = 64 };
	struct ftl_config whole, part;

	(void)state;
	ftl_config_init(&whole, 64 * 3);	/* three stripes, four shards */
	whole.pages_per_block = 64;
	assert_int_equal(ftl_shard_config(&whole, &s, 2, &part), 0);
	assert_int_equal(ftl_shard_config(&whole, &s, 3, &part), -EINVAL);
}

#define NR 3
#define STRIPE 16
#define PAGES (STRIPE * NR * 40 + 50)

/* Shadowed shards under random writes, reads and discards; sums checked. */
static void test_sharded_traffic(void **state)
{
	struct ftl_shards s = { .nr = NR, .stripe = STRIPE };
	struct shadow *sh = calloc(NR, sizeof(*sh));
	struct ftl_stats part, sum = { 0 }, want = { 0 };
	struct ftl_geometry g, gsum = { 0 };
	struct ftl_config whole, cfg;
	u64 seed = 7, blocks = 0, lpn, local, n;
	u32 i, k;

	(void)state;
	assert_non_null(sh);
	ftl_config_init(&whole, PAGES);
	whole.pages_per_block = STRIPE;
	whole.op_percent = 10;
	for (i = 0; i < NR; i++) {
		assert_int_equal(ftl_shard_config(&whole, &s, i, &cfg), 0);
		assert_int_equal(shadow_init(&sh[i], &cfg), 0);
	}
	for (k = 0; k < 60000; k++) {
		u32 op = rnd_below(&seed, 100);

		lpn = rnd_below(&seed, PAGES);
		i = ftl_shard_of(&s, lpn, &local);
		if (op < 90) {
			assert_true(shadow_write(&sh[i], local));
		} else if (op < 98) {
			assert_true(shadow_read(&sh[i], local));
		} else {
			/* A device range, cut where it leaves a shard. */
			n = 1 + rnd_below(&seed, 3 * STRIPE);
			if (n > PAGES - lpn)
				n = PAGES - lpn;
			while (n) {
				u64 piece = ftl_shard_run(&s, lpn);

				piece = piece < n ? piece : n;
				i = ftl_shard_of(&s, lpn, &local);
				assert_true(shadow_discard(&sh[i], local, piece,
							   false));
				lpn += piece;
				n -= piece;
			}
		}
	}
	for (i = 0; i < NR; i++) {
		assert_true(shadow_verify(&sh[i]));
		ftl_get_stats(sh[i].ftl, &part);
		ftl_get_geometry(sh[i].ftl, &g);
		ftl_shard_stats_add(&sum, &blocks, &part, g.physical_blocks);
		ftl_shard_geometry_add(&gsum, &g);
		want.host_pages_written += part.host_pages_written;
		want.nand_pages_written += part.nand_pages_written;
		want.valid_pages += part.valid_pages;
		want.erases += part.erases;
		want.free_blocks += part.free_blocks;
		if (i == 0 || part.erase_min < want.erase_min)
			want.erase_min = part.erase_min;
		if (part.erase_max > want.erase_max)
			want.erase_max = part.erase_max;
		want.erase_mean_milli += part.erase_mean_milli * g.physical_blocks;
	}
	assert_int_equal(gsum.logical_pages, PAGES);
	assert_int_equal(gsum.physical_blocks, blocks);
	assert_int_equal(gsum.pages_per_block, STRIPE);
	assert_int_equal(sum.host_pages_written, want.host_pages_written);
	assert_int_equal(sum.nand_pages_written, want.nand_pages_written);
	assert_int_equal(sum.valid_pages, want.valid_pages);
	assert_int_equal(sum.erases, want.erases);
	assert_int_equal(sum.free_blocks, want.free_blocks);
	assert_int_equal(sum.erase_min, want.erase_min);
	assert_int_equal(sum.erase_max, want.erase_max);
	assert_true(sum.erase_min < sum.erase_max);
	assert_int_equal(sum.erase_mean_milli, want.erase_mean_milli / blocks);
	assert_int_equal(sum.waf_milli, want.nand_pages_written * 1000 /
			 want.host_pages_written);
	assert_true(sum.waf_milli > 1000);	/* GC ran */
	for (i = 0; i < NR; i++)
		assert_true(shadow_fini(&sh[i]));
	free(sh);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dealing),
		cmocka_unit_test(test_one_shard_is_the_device),
		cmocka_unit_test(test_empty_shard_refused),
		cmocka_unit_test(test_sharded_traffic),
	};

	return cmocka_run_group_tests_name("shard", tests, NULL, NULL);
}
