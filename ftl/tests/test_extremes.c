// SPDX-License-Identifier: GPL-2.0
/*
 * test_extremes.c - random configurations at the edges of the core's
 * ranges, each with a random mix of every operation, checked in full
 * (shadow_verify(): ftl_check(), every lookup, every page, the counters)
 * after every operation.
 *
 * A configuration: 2..16 pages per block (odd counts too), a few to 60
 * blocks of logical pages, 1..100 % over-provisioning, every GC policy,
 * wear leveling thresholds 0..3, watermarks near their minimum, program
 * and erase faults up to 10 %, endurance 1..40 erases, remanence,
 * placement classes, the spare-area reverse map (read_oob) and secure
 * erase by windows of blocks. Most runs wear the device out, so the paths
 * into and past read-only mode (GC, wear leveling and secure erase giving
 * up half way) are what this exercises; test_model covers long healthy
 * runs.
 *
 * Environment: FTL_SEED=n (base seed), FTL_EXTREME_RUNS=n (default 300).
 * A failure prints the run's seed and operation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "shadow.h"

static u64 env_u64(const char *name, u64 def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

/* A random configuration the core accepts; false if none was found. */
static bool random_config(u64 *rng, struct ftl_config *cfg, bool *oob)
{
	static const u32 ppbs[] = { 2, 3, 4, 5, 7, 8, 16 };
	u32 ppb = ppbs[rnd_below(rng, sizeof(ppbs) / sizeof(ppbs[0]))];
	struct ftl_geometry geo;

	ftl_config_init(cfg, 1 + rnd_below(rng, 60 * ppb));
	cfg->pages_per_block = ppb;
	cfg->op_percent = 1 + rnd_below(rng, 100);
	cfg->gc_policy = rnd_below(rng, 3);
	cfg->wl_threshold = rnd_below(rng, 3) ? rnd_below(rng, 4) : 0;
	if (rnd_below(rng, 2)) {
		cfg->gc_low_blocks = 2 + rnd_below(rng, 3);
		cfg->gc_high_blocks = cfg->gc_low_blocks + rnd_below(rng, 3);
	}
	if (rnd_below(rng, 2))
		cfg->program_fail_ppm = rnd_below(rng, 100001);
	if (rnd_below(rng, 2))
		cfg->erase_fail_ppm = rnd_below(rng, 100001);
	if (rnd_below(rng, 2))
		cfg->endurance = 1 + rnd_below(rng, 40);
	cfg->remanence = rnd_below(rng, 2);
	cfg->placement_classes = rnd_below(rng, 3) ? 0 : rnd_below(rng, 5);
	cfg->fault_seed = splitmix64(rng);
	*oob = rnd_below(rng, 2);
	/* Too few spare blocks for the rest: more over-provisioning first. */
	if (!ftl_config_check(cfg, &geo, NULL))
		return true;
	cfg->op_percent = 100;
	if (!ftl_config_check(cfg, &geo, NULL))
		return true;
	cfg->gc_low_blocks = 0;
	cfg->gc_high_blocks = 0;
	if (!ftl_config_check(cfg, &geo, NULL))
		return true;
	cfg->logical_pages = 40 * ppb;
	return !ftl_config_check(cfg, &geo, NULL);
}

/* [@lpn, @lpn + *@len) clipped to @lp pages. */
static void clip(u64 lp, u64 lpn, u64 *len)
{
	if (*len > lp - lpn)
		*len = lp - lpn;
}

/* One random operation on @sh; false on a shadow failure. */
static bool random_op(struct shadow *sh, u64 *rng, u32 classes)
{
	u64 lp = sh->geo.logical_pages, ppb = sh->geo.pages_per_block;
	u64 r = rnd_below(rng, 1000), lpn = rnd_below(rng, lp), len, i;
	struct ftl_sanitize res;
	s64 erased;

	if (r < 600)
		return shadow_write_class(sh, lpn, rnd_below(rng, classes));
	if (r < 700) {
		len = 1 + rnd_below(rng, ppb);
		clip(lp, lpn, &len);
		return shadow_write_atomic(sh, lpn, len,
					   rnd_below(rng, classes));
	}
	if (r < 800)
		return shadow_read(sh, lpn);
	if (r < 880) {		/* zero-length ranges and the end included */
		lpn = rnd_below(rng, lp + 1);
		len = rnd_below(rng, 2 * ppb + 1);
		clip(lp, lpn, &len);
		return shadow_discard(sh, lpn, len, r & 1);
	}
	if (r < 900) {
		len = 1 + rnd_below(rng, ppb);
		clip(lp, lpn, &len);
		return shadow_secure_erase(sh, lpn, len, &res);
	}
	if (r < 920)
		return shadow_reclaim_stale(sh, &erased);
	if (r < 930) {		/* ranges that do not fit */
		lpn = rnd_below(rng, lp + 3);
		len = lpn > lp ? rnd_below(rng, 3) :
		      lp - lpn + 1 + rnd_below(rng, 3);
		return shadow_discard_bad(sh, lpn, len, r & 1);
	}
	for (i = 0; i < 4; i++)
		if (!shadow_write(sh, lpn))
			return false;
	return true;
}

static void test_random_extremes(void **state)
{
	u64 base = env_u64("FTL_SEED", 0xe7e3e5ULL);
	u64 runs = env_u64("FTL_EXTREME_RUNS", 300), run, op, nops;
	u64 read_only = 0;

	(void)state;
	for (run = 0; run < runs; run++) {
		u64 seed = base + run, rng = seed;
		struct ftl_config cfg;
		struct shadow sh;
		u32 ro_left = 200;
		u32 classes;
		bool oob;

		if (!random_config(&rng, &cfg, &oob))
			continue;
		classes = cfg.placement_classes ? cfg.placement_classes : 1;
		if (shadow_init_mode(&sh, &cfg, oob))
			fail_msg("seed %#llx: shadow_init failed",
				 (unsigned long long)seed);
		sh.se_window = rnd_below(&rng, 2) ? 1 + rnd_below(&rng, 4) : 0;
		nops = 3000 + rnd_below(&rng, 5000);
		for (op = 0; op < nops; op++) {
			if (!random_op(&sh, &rng, classes) ||
			    !shadow_verify(&sh))
				fail_msg("seed %#llx op %llu: %s",
					 (unsigned long long)seed,
					 (unsigned long long)op,
					 sh.failed ? sh.err : "?");
			/* Read-only: 200 more operations try every refusal. */
			if (sh.read_only && !ro_left--)
				break;
		}
		read_only += sh.read_only;
		if (!shadow_fini(&sh))
			fail_msg("seed %#llx: %s", (unsigned long long)seed,
				 sh.err);
	}
	/* Most runs reach end of life; the paths past it are the point. */
	if (runs >= 100 && read_only < runs / 4)
		fail_msg("only %llu of %llu runs went read-only",
			 (unsigned long long)read_only,
			 (unsigned long long)runs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_extremes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
