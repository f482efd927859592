// SPDX-License-Identifier: GPL-2.0
/*
 * test_model.c - model-based randomized test of the FTL core.
 *
 * Random writes, overwrites, reads, discards and unmaps (single pages and
 * runs crossing block boundaries, now and then the whole device) run
 * against a plain reference array, for every GC policy and several
 * geometries, until the host has written the logical capacity
 * FTL_MODEL_ROUNDS times a per-case factor over (default 200, so at least
 * 200 times; the acceptance minimum is 50). The data store lives in the
 * callbacks (tests/shadow.c): every read must find, at the physical page
 * the core returns, the content the test last wrote to that logical page.
 *
 * Environment:
 *   FTL_SEED=n          base seed (default fixed); each case derives its own
 *   FTL_CASE=pattern    run only the cases matching (cmocka test filter)
 *   FTL_MODEL_ROUNDS=n  full-capacity overwrites per case (default 200)
 *
 * A failure prints the base seed, the case and the operation index; rerun
 * with the same FTL_SEED (and FTL_CASE) to replay it exactly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "shadow.h"

#define DEFAULT_SEED	0x5eedf71bULL

struct model_case {
	const char *name;
	u32 pages_per_block;
	u64 logical_pages;
	u32 op_percent;
	u32 wl_threshold;
	u32 hot_permille;	/* share of writes going to the hot 10 % */
	u32 rounds_factor;	/* full overwrites = rounds * this */
	bool expect_moves;	/* GC must have relocated valid pages */
	u32 gc_low, gc_high;	/* watermarks, 0 = default */
	enum ftl_gc_policy policy;
	bool oob;		/* the store keeps the lpns (ops->read_oob) */
	u32 index;
	u32 program_ppm;	/* flash faults, per million operations */
	u32 erase_ppm;
	u32 classes;		/* placement classes, 0 = one */
};

static u64 base_seed = DEFAULT_SEED;
static u64 rounds = 200;

#define FAIL(what) do {							\
	fail_msg("%s: %s\n  seed: FTL_SEED=%#llx FTL_CASE='%s' (case seed %#llx), op %llu", \
		 c->name, (what), (unsigned long long)base_seed, c->name, \
		 (unsigned long long)case_seed, (unsigned long long)op); \
} while (0)

#define CHECK(expr) do {						\
	if (!(expr) || sh.failed)					\
		FAIL(sh.failed ? sh.err : #expr);			\
} while (0)

static u64 pick_lpn(u64 *rng, const struct model_case *c, u64 lp)
{
	u64 hot = lp / 10 ? lp / 10 : 1;

	if (c->hot_permille && rnd_below(rng, 1000) < c->hot_permille)
		return rnd_below(rng, hot);
	return rnd_below(rng, lp);
}

/*
 * With placement classes, the class of a write follows its lpn (as a
 * lifetime hint follows a file): the hot tenth gets class 1, the rest a
 * class by lpn; else class 0.
 */
static u32 class_of(const struct model_case *c, u64 lpn, u64 lp)
{
	if (c->classes < 2)
		return 0;
	if (lpn < (lp / 10 ? lp / 10 : 1))
		return 1;
	return (u32)(lpn % c->classes);
}

static void run_model(void **state)
{
	const struct model_case *c = *state;
	struct ftl_config cfg;
	struct shadow sh;
	struct shadow_counts t;
	u64 case_seed, rng, op = 0, lp = c->logical_pages, ppb;
	u64 target, writes = 0, i;
	int err;

	case_seed = base_seed ^ ((u64)(c->index + 1) * 0x9e3779b97f4a7c15ULL);
	rng = case_seed;
	ftl_config_init(&cfg, lp);
	cfg.pages_per_block = c->pages_per_block;
	cfg.op_percent = c->op_percent;
	cfg.gc_policy = c->policy;
	cfg.wl_threshold = c->wl_threshold;
	cfg.gc_low_blocks = c->gc_low;
	cfg.gc_high_blocks = c->gc_high;
	cfg.program_fail_ppm = c->program_ppm;
	cfg.erase_fail_ppm = c->erase_ppm;
	cfg.fault_seed = case_seed;
	cfg.placement_classes = c->classes;
	err = shadow_init_mode(&sh, &cfg, c->oob);
	if (err)
		fail_msg("%s: shadow_init: %d", c->name, err);
	CHECK(shadow_verify(&sh));
	ppb = c->pages_per_block;
	target = rounds * c->rounds_factor * lp;

	/* start full, so that GC has work from the first round */
	for (i = 0; i < lp; i++, op++)
		CHECK(shadow_write(&sh, i));
	writes = lp;

	/* A device that wore out serves reads only: verify them below. */
	while (writes < target && !sh.read_only) {
		u64 r = rnd_below(&rng, 10000), lpn, len;

		op++;
		if (r < 5000) {			/* single write */
			lpn = pick_lpn(&rng, c, lp);
			CHECK(shadow_write_class(&sh, lpn, class_of(c, lpn, lp)));
			writes++;
		} else if (r < 5600) {		/* sequential run */
			lpn = rnd_below(&rng, lp);
			len = 1 + rnd_below(&rng, 2 * ppb + 2);
			if (len > lp - lpn)
				len = lp - lpn;
			/* Odd runs up to a block long: one atomic write. */
			if (len <= ppb && (len & 1))
				CHECK(shadow_write_atomic(&sh, lpn, len,
							  class_of(c, lpn, lp)));
			for (i = 0; i < len && !(len <= ppb && (len & 1)); i++)
				CHECK(shadow_write_class(&sh, lpn + i,
							 class_of(c, lpn + i, lp)));
			writes += len;
		} else if (r < 8000) {		/* single read */
			CHECK(shadow_read(&sh, rnd_below(&rng, lp)));
		} else if (r < 8500) {		/* read run */
			lpn = rnd_below(&rng, lp);
			len = 1 + rnd_below(&rng, 2 * ppb);
			if (len > lp - lpn)
				len = lp - lpn;
			for (i = 0; i < len; i++)
				CHECK(shadow_read(&sh, lpn + i));
		} else if (r < 9100) {		/* single-page discard */
			CHECK(shadow_discard(&sh, rnd_below(&rng, lp), 1, false));
		} else if (r < 9300) {		/* discard run, maybe empty */
			lpn = rnd_below(&rng, lp + 1);
			len = rnd_below(&rng, 2 * ppb + 2);
			if (len > lp - lpn)
				len = lp - lpn;
			CHECK(shadow_discard(&sh, lpn, len, false));
		} else if (r < 9400) {		/* unmap run */
			lpn = rnd_below(&rng, lp);
			len = 1 + rnd_below(&rng, ppb + 1);
			if (len > lp - lpn)
				len = lp - lpn;
			CHECK(shadow_discard(&sh, lpn, len, true));
		} else if (r < 9450) {		/* ranges that do not fit */
			lpn = rnd_below(&rng, lp + 2);
			len = lpn > lp ? rnd_below(&rng, 3) :
			      lp - lpn + 1 + rnd_below(&rng, ppb);
			if (rnd_below(&rng, 4) == 0)
				len = U64_MAX - rnd_below(&rng, 2);
			if (len || lpn > lp)
				CHECK(shadow_discard_bad(&sh, lpn, len,
							 rnd_below(&rng, 2)));
		} else if (r < 9452) {		/* whole device */
			CHECK(shadow_discard(&sh, 0, lp, false));
		} else if (r < 9460) {
			shadow_reset_stats(&sh);
		} else {			/* hot-page burst */
			lpn = pick_lpn(&rng, c, lp);
			for (i = 0; i < 4; i++)
				CHECK(shadow_write(&sh, lpn));
			writes += 4;
		}
		CHECK(shadow_check_stats(&sh));
		if (op % 4096 == 0)
			CHECK(shadow_verify(&sh));
	}
	op++;
	CHECK(shadow_verify(&sh));
	for (i = 0; i < lp; i++)
		CHECK(shadow_read(&sh, i));
	CHECK(shadow_check_stats(&sh));

	shadow_totals(&sh, &t);
	if (c->program_ppm || c->erase_ppm) {
		struct ftl_stats st;

		/* Blocks went bad; each one's data was read back above. */
		ftl_get_stats(sh.ftl, &st);
		CHECK(t.retired >= 100);
		CHECK(st.bad_blocks == t.retired);
		CHECK(ftl_check(sh.ftl) == 0);
	} else {
		CHECK(!sh.read_only);
		CHECK(t.host_written >= target);
	}
	CHECK(t.erases > 0);
	CHECK(t.gc_runs > 0);
	if (c->expect_moves)
		CHECK(t.moves > 0);
	/* FIFO is a circular log and levels wear by itself */
	if (c->wl_threshold && c->policy != FTL_GC_FIFO) {
		CHECK(t.wl_runs > 0);
		CHECK(t.wl_moves > 0);
	} else if (!c->wl_threshold) {
		CHECK(t.wl_runs == 0);
	}
	CHECK(shadow_fini(&sh));
	print_message("%-28s seed %#018llx ops %8llu host %8llu nand %8llu erases %6llu gc %6llu wl %4llu bad %4llu%s\n",
		      c->name, (unsigned long long)case_seed,
		      (unsigned long long)op,
		      (unsigned long long)t.host_written,
		      (unsigned long long)(t.host_written + t.moves),
		      (unsigned long long)t.erases,
		      (unsigned long long)t.gc_runs,
		      (unsigned long long)t.wl_runs,
		      (unsigned long long)t.retired,
		      sh.read_only ? " read-only" : "");
}

/* name, pages/block, logical pages, op %, wl threshold, hot share,
 * rounds factor, expect GC relocations, gc_low, gc_high, policy, oob,
 * index, program and erase faults (ppm), placement classes */
#define GEOMETRIES(P, pname)						\
	{ "tiny/" pname, 4, 32, 50, 0, 0, 40, true, 0, 0, P, false, 0, 0, 0, 0 }, \
	{ "tiny-ragged/" pname, 2, 15, 100, 0, 300, 80, false, 0, 0, P, false, 0, 0, 0, 0 }, \
	{ "medium/" pname, 64, 4000, 12, 0, 500, 2, true, 0, 0, P, false, 0, 0, 0, 0 }, \
	{ "default-ppb/" pname, 256, 16384, 7, 0, 0, 1, true, 0, 0, P, false, 0, 0, 0, 0 }, \
	{ "wear-level/" pname, 16, 512, 25, 3, 900, 8, true, 0, 0, P, false, 0, 0, 0, 0 }, \
	{ "watermarks-wl1/" pname, 8, 200, 40, 1, 700, 20, true, 3, 5, P, false, 0, 0, 0, 0 }

/* The lpns in the data store's spare areas (ftl_ops.read_oob), as NAND keeps them. */
#define OOB_GEOMETRIES(P, pname)					\
	{ "oob-tiny/" pname, 4, 32, 50, 0, 0, 40, true, 0, 0, P, true, 0, 0, 0, 0 }, \
	{ "oob-wear-level/" pname, 16, 512, 25, 3, 900, 8, true, 0, 0, P, true, 0, 0, 0, 0 }

/*
 * Program and erase failures: hundreds of blocks go bad (100 % spare in
 * small blocks), each relocated and retired while every read is checked.
 */
#define FAULT_GEOMETRIES(P, pname)					\
	{ "faults/" pname, 4, 2048, 100, 3, 600, 1, true, 0, 0, P, false, 0, 500, 300, 0 }, \
	{ "oob-faults/" pname, 8, 2048, 100, 0, 0, 1, true, 3, 6, P, true, 0, 800, 2000, 0 }

/*
 * Placement classes: each class fills its own open blocks (checked by the
 * shadow on every program), GC and wear leveling relocate into theirs; the
 * most classes, and classes with flash faults.
 */
#define CLASS_GEOMETRIES(P, pname)					\
	{ "classes4/" pname, 64, 4000, 25, 0, 500, 2, true, 0, 0, P, false, 0, 0, 0, 4 }, \
	{ "classes17-wl/" pname, 16, 2048, 40, 3, 800, 4, true, 0, 0, P, false, 0, 0, 0, 17 }, \
	{ "classes3-faults/" pname, 8, 2048, 100, 0, 600, 1, true, 0, 0, P, false, 0, 500, 300, 3 }

static struct model_case cases[] = {
	GEOMETRIES(FTL_GC_GREEDY, "greedy"),
	GEOMETRIES(FTL_GC_FIFO, "fifo"),
	GEOMETRIES(FTL_GC_COST_BENEFIT, "cost-benefit"),
	OOB_GEOMETRIES(FTL_GC_GREEDY, "greedy"),
	OOB_GEOMETRIES(FTL_GC_FIFO, "fifo"),
	OOB_GEOMETRIES(FTL_GC_COST_BENEFIT, "cost-benefit"),
	FAULT_GEOMETRIES(FTL_GC_GREEDY, "greedy"),
	FAULT_GEOMETRIES(FTL_GC_FIFO, "fifo"),
	FAULT_GEOMETRIES(FTL_GC_COST_BENEFIT, "cost-benefit"),
	CLASS_GEOMETRIES(FTL_GC_GREEDY, "greedy"),
	CLASS_GEOMETRIES(FTL_GC_FIFO, "fifo"),
	CLASS_GEOMETRIES(FTL_GC_COST_BENEFIT, "cost-benefit"),
};

#define NCASES (sizeof(cases) / sizeof(cases[0]))

int main(void)
{
	struct CMUnitTest tests[NCASES];
	const char *env;
	size_t i;

	env = getenv("FTL_SEED");
	if (env && *env)
		base_seed = strtoull(env, NULL, 0);
	env = getenv("FTL_MODEL_ROUNDS");
	if (env && *env)
		rounds = strtoull(env, NULL, 0);
	env = getenv("FTL_CASE");
	if (env && *env)
		cmocka_set_test_filter(env);
	print_message("test_model: FTL_SEED=%#llx, %llu full overwrites per case\n",
		      (unsigned long long)base_seed, (unsigned long long)rounds);

	for (i = 0; i < NCASES; i++) {
		cases[i].index = i;
		tests[i] = (struct CMUnitTest){
			.name = cases[i].name,
			.test_func = run_model,
			.initial_state = &cases[i],
		};
	}
	return cmocka_run_group_tests_name("model", tests, NULL, NULL);
}
