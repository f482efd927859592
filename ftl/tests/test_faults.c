// SPDX-License-Identifier: GPL-2.0
/*
 * test_faults.c - flash faults and error paths of the FTL core: program
 * and erase failures, endurance and the read-only end of life, the
 * reaction to a broken invariant, and allocation failures in ftl_create().
 * The shadow store (shadow.c) checks every callback: no data is lost, a
 * bad block is never programmed, erased or handed out again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "shadow.h"
#include "ok.h"

static u64 rng_state = 0xfa017ULL;

static void small_cfg(struct ftl_config *cfg, u64 lp, u32 ppb, u32 op)
{
	ftl_config_init(cfg, lp);
	cfg->pages_per_block = ppb;
	cfg->op_percent = op;
}

/* Every logical page reads what was last written to it, or zeroes. */
static void read_everything(struct shadow *sh)
{
	u64 lpn;

	OK(sh, shadow_verify(sh));
	for (lpn = 0; lpn < sh->geo.logical_pages; lpn++)
		OK(sh, shadow_read(sh, lpn));
}

static void test_config_rejects_fault_values(void **state)
{
	struct ftl_config cfg;

	(void)state;
	ftl_port_quiet = true;
	small_cfg(&cfg, 256, 4, 25);
	cfg.program_fail_ppm = FTL_MAX_FAIL_PPM;
	cfg.erase_fail_ppm = FTL_MAX_FAIL_PPM;
	cfg.endurance = FTL_MAX_ENDURANCE;
	assert_int_equal(ftl_config_check(&cfg, NULL, NULL), 0);
	cfg.program_fail_ppm = FTL_MAX_FAIL_PPM + 1;
	assert_int_equal(ftl_config_check(&cfg, NULL, NULL), -EINVAL);
	cfg.program_fail_ppm = 0;
	cfg.erase_fail_ppm = FTL_MAX_FAIL_PPM + 1;
	assert_int_equal(ftl_config_check(&cfg, NULL, NULL), -EINVAL);
	cfg.erase_fail_ppm = 0;
	cfg.endurance = FTL_MAX_ENDURANCE + 1;
	assert_int_equal(ftl_config_check(&cfg, NULL, NULL), -EINVAL);
	ftl_port_quiet = false;
}

/*
 * Program failures: the host write still succeeds, the failed block is
 * emptied by GC and retired, and the spare pool shrinks with it.
 */
static void test_program_failures_retire_blocks(void **state)
{
	struct ftl_config cfg;
	struct ftl_stats st;
	struct shadow sh;
	u64 i;

	(void)state;
	small_cfg(&cfg, 2048, 8, 100);
	cfg.program_fail_ppm = 5000;	/* 0.5 % */
	assert_int_equal(shadow_init(&sh, &cfg), 0);
	for (i = 0; i < 10 * 2048 && !sh.read_only; i++)
		OK(&sh, shadow_write(&sh, i < 2048 ? i : rnd_below(&rng_state, 2048)));
	assert_false(sh.read_only);
	ftl_get_stats(sh.ftl, &st);
	print_message("%llu program failures, %llu bad blocks, %llu spare left\n",
		      (unsigned long long)st.program_failures,
		      (unsigned long long)st.bad_blocks,
		      (unsigned long long)st.spare_blocks);
	assert_true(st.program_failures > 50);
	/* every failed block is retired once its data is relocated */
	assert_int_equal(st.bad_blocks, st.program_failures);
	assert_int_equal(st.erase_failures, 0);
	assert_int_equal(st.spare_blocks, sh.geo.spare_blocks - st.bad_blocks);
	assert_int_equal(st.read_only, FTL_WRITABLE);
	read_everything(&sh);
	OK(&sh, shadow_fini(&sh));
}

/*
 * Endurance: blocks fail the erase after `endurance` erases, wear leveling
 * spreads that over the device, and once the spares cannot feed GC the
 * FTL turns read-only with every acknowledged write still readable.
 */
static void test_endurance_end_of_life(void **state)
{
	const u32 endurance = 12;
	struct ftl_config cfg;
	struct ftl_stats st;
	struct shadow sh;
	u64 i, writes = 0, b;
	u32 ppn;

	(void)state;
	small_cfg(&cfg, 256, 4, 25);
	cfg.endurance = endurance;
	cfg.wl_threshold = 2;
	assert_int_equal(shadow_init(&sh, &cfg), 0);
	for (i = 0; !sh.read_only; i++) {
		OK(&sh, shadow_write(&sh, i < 256 ? i : rnd_below(&rng_state, 256)));
		writes += !sh.read_only;
		assert_true(i < 1000000);
	}
	assert_int_equal(sh.last_rc, -EROFS);
	assert_int_equal(ftl_read_only(sh.ftl), FTL_READ_ONLY_WORN_OUT);
	ftl_get_stats(sh.ftl, &st);
	print_message("%llu writes before the end of life, %llu bad blocks, %llu spare left\n",
		      (unsigned long long)writes, (unsigned long long)st.bad_blocks,
		      (unsigned long long)st.spare_blocks);
	assert_int_equal(st.read_only, FTL_READ_ONLY_WORN_OUT);
	/*
	 * Either too few spares are left for GC, or (wear leveling keeps all
	 * blocks equally worn, so they fail together) erases failed faster
	 * than GC could free blocks and the free pool ran dry.
	 */
	assert_true(st.spare_blocks < sh.geo.gc_high_blocks + 2 ||
		    st.free_blocks < 2);
	assert_int_equal(st.erase_failures, st.bad_blocks);
	/* wear leveling let the device use most of its endurance */
	print_message("mean erase count at the end of life: %llu.%03llu of %u\n",
		      (unsigned long long)st.erase_mean_milli / 1000,
		      (unsigned long long)st.erase_mean_milli % 1000, endurance);
	assert_true(st.erase_mean_milli >= endurance * 1000ULL * 3 / 4);
	for (b = 0; b < sh.geo.physical_blocks; b++) {
		if (sh.bad[b])
			assert_int_equal(ftl_block_erase_count(sh.ftl, b), endurance);
		assert_true(ftl_block_erase_count(sh.ftl, b) <= endurance);
	}
	read_everything(&sh);
	/* refused from now on, and nothing changes */
	for (i = 0; i < 64; i++) {
		OK(&sh, shadow_write(&sh, rnd_below(&rng_state, 256)));
		assert_int_equal(sh.last_rc, -EROFS);
	}
	OK(&sh, shadow_discard(&sh, 0, 256, false));
	assert_int_equal(sh.last_rc, -EROFS);
	OK(&sh, shadow_discard(&sh, 3, 5, true));
	assert_int_equal(sh.last_rc, -EROFS);
	assert_int_equal(ftl_write(sh.ftl, 256, &ppn), -ERANGE);
	read_everything(&sh);
	OK(&sh, shadow_fini(&sh));
}

/*
 * Atomic writes under program failures until the end of life: a program
 * failure abandons the pages programmed so far and starts again
 * elsewhere, and the write the end of life refuses - most of them big
 * enough to need GC or a new block midway - changes none of its pages
 * (shadow_write_atomic() checks every page of every write).
 */
static void test_atomic_writes_faults_end_of_life(void **state)
{
	struct ftl_config cfg;
	struct ftl_stats st;
	struct shadow sh;
	u64 i, lpn;
	u32 n, ppns[8];

	(void)state;
	small_cfg(&cfg, 1024, 8, 25);
	cfg.endurance = 30;
	cfg.wl_threshold = 4;
	cfg.program_fail_ppm = 2000;	/* 0.2 % */
	assert_int_equal(shadow_init(&sh, &cfg), 0);
	assert_int_equal(ftl_write_atomic(sh.ftl, 0, 0, 0, ppns), -EINVAL);
	assert_int_equal(ftl_write_atomic(sh.ftl, 0, 9, 0, ppns), -EINVAL);
	assert_int_equal(ftl_write_atomic(sh.ftl, 1020, 5, 0, ppns), -ERANGE);
	assert_int_equal(ftl_write_atomic(sh.ftl, 0, 1, 1, ppns), -EINVAL);
	for (i = 0; !sh.read_only; i++) {
		n = 1 + (u32)rnd_below(&rng_state, 8);
		lpn = rnd_below(&rng_state, 1024 - n + 1);
		OK(&sh, shadow_write_atomic(&sh, lpn, n, 0));
		OK(&sh, shadow_check_stats(&sh));
		assert_true(i < 1000000);
	}
	assert_int_equal(sh.last_rc, -EROFS);
	ftl_get_stats(sh.ftl, &st);
	print_message("%llu atomic writes, %llu pages abandoned after %llu program failures\n",
		      (unsigned long long)st.atomic_writes,
		      (unsigned long long)st.atomic_pages_abandoned,
		      (unsigned long long)st.program_failures);
	assert_true(st.atomic_pages_abandoned > 0);
	assert_true(st.atomic_writes > 1000);
	read_everything(&sh);
	OK(&sh, shadow_fini(&sh));
}

/* Erase failures retire blocks; same seed, same faults. */
static void run_erase_faults(u64 seed, struct ftl_stats *st)
{
	struct ftl_config cfg;
	struct shadow sh;
	u64 i, rng = 42;

	small_cfg(&cfg, 512, 4, 100);
	cfg.erase_fail_ppm = 5000;
	cfg.program_fail_ppm = 2000;
	cfg.fault_seed = seed;
	assert_int_equal(shadow_init(&sh, &cfg), 0);
	for (i = 0; i < 30 * 512 && !sh.read_only; i++)
		OK(&sh, shadow_write(&sh, i < 512 ? i : rnd_below(&rng, 512)));
	ftl_get_stats(sh.ftl, st);
	read_everything(&sh);
	OK(&sh, shadow_fini(&sh));
}

static void test_fault_seed_reproducible(void **state)
{
	struct ftl_stats a, b, c;

	(void)state;
	run_erase_faults(7, &a);
	run_erase_faults(7, &b);
	run_erase_faults(8, &c);
	assert_true(a.erase_failures > 10);
	assert_true(a.program_failures > 10);
	assert_int_equal(a.bad_blocks, a.erase_failures + a.program_failures);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_true(a.erase_failures != c.erase_failures ||
		    a.program_failures != c.program_failures ||
		    a.nand_pages_written != c.nand_pages_written);
}

static u32 lying_oob(void *ctx, u32 ppn)
{
	(void)ctx;
	(void)ppn;
	return FTL_UNMAPPED;
}

static const struct ftl_ops lying_ops = { .read_oob = lying_oob };

/*
 * A data store whose spare areas lie breaks the FTL's invariants: GC
 * finds no valid page in a block that holds some. The FTL must warn and
 * turn read-only rather than erase mapped data, and keep every mapping.
 */
static void test_broken_invariant_read_only(void **state)
{
	struct ftl_config cfg;
	struct ftl_stats st;
	struct ftl *ftl;
	u32 ppn, *l2p, *erased_at;
	u64 i;
	int err, rc = 0;

	(void)state;
	small_cfg(&cfg, 64, 4, 50);
	ftl = ftl_create(&cfg, &lying_ops, NULL, &err);
	assert_non_null(ftl);
	l2p = calloc(64, sizeof(*l2p));
	erased_at = calloc(64, sizeof(*erased_at));
	assert_non_null(l2p);
	assert_non_null(erased_at);
	ftl_port_warn_continues = true;
	ftl_port_warnings = 0;
	for (i = 0; i < 64 * 8 && !rc; i++) {
		u64 lpn = i < 64 ? i : rnd_below(&rng_state, 64);

		rc = ftl_write(ftl, lpn, &ppn);
		if (!rc) {
			l2p[lpn] = ppn;
			erased_at[lpn] = ftl_block_erase_count(ftl, ppn / 4);
		}
	}
	ftl_port_warn_continues = false;
	assert_int_equal(rc, -EROFS);
	assert_true(ftl_port_warnings > 0);
	assert_int_equal(ftl_read_only(ftl), FTL_READ_ONLY_BROKEN);
	ftl_get_stats(ftl, &st);
	assert_int_equal(st.read_only, FTL_READ_ONLY_BROKEN);
	assert_int_equal(ftl_write(ftl, 0, &ppn), -EROFS);
	assert_int_equal(ftl_discard(ftl, 0, 64), -EROFS);
	/*
	 * Nothing was erased under a mapping: every page still maps where it
	 * was written, and that block was not erased since.
	 */
	for (i = 0; i < 64; i++) {
		assert_int_equal(ftl_lookup(ftl, i), l2p[i]);
		assert_int_equal(ftl_block_erase_count(ftl, l2p[i] / 4),
				 erased_at[i]);
	}
	free(l2p);
	free(erased_at);
	ftl_destroy(ftl);
}

static u64 releases;

static void count_release(void *ctx, u64 lpn, u32 ppn)
{
	(void)ctx;
	(void)lpn;
	(void)ppn;
	releases++;
}

static const struct ftl_ops counting_ops = { .release = count_release };

/*
 * Every allocation of ftl_create() fails in turn: -ENOMEM, no callback
 * (a half-built FTL holds no data), nothing leaked (ASan build).
 */
static void test_create_alloc_failures(void **state)
{
	struct ftl_config cfg;
	struct ftl *ftl;
	unsigned long n;
	int err;

	(void)state;
	small_cfg(&cfg, 1024, 8, 20);
	for (n = 1;; n++) {
		releases = 0;
		ftl_port_fail_alloc_in = n;
		ftl = ftl_create(&cfg, &counting_ops, NULL, &err);
		if (ftl)
			break;
		assert_int_equal(err, -ENOMEM);
		assert_int_equal(releases, 0);
		assert_true(n < 100);
	}
	ftl_port_fail_alloc_in = 0;
	print_message("ftl_create() survived %lu allocation failures\n", n - 1);
	assert_true(n > 5);
	assert_int_equal(err, 0);
	assert_int_equal(ftl_check(ftl), 0);
	ftl_destroy(ftl);
	assert_int_equal(releases, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_rejects_fault_values),
		cmocka_unit_test(test_program_failures_retire_blocks),
		cmocka_unit_test(test_endurance_end_of_life),
		cmocka_unit_test(test_atomic_writes_faults_end_of_life),
		cmocka_unit_test(test_fault_seed_reproducible),
		cmocka_unit_test(test_broken_invariant_read_only),
		cmocka_unit_test(test_create_alloc_failures),
	};

	/*
	 * A broken read-only path can make GC retry the same victim for
	 * ever; SIGALRM then ends the run (a failure) instead of a hang.
	 */
	alarm(300);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
