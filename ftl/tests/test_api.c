// SPDX-License-Identifier: GPL-2.0
/*
 * test_api.c - unit tests of every operation and error path of the FTL
 * core's public API (ftl.h): configuration, create/destroy, reads, writes,
 * discards, statistics (garbage collection and wear leveling through the
 * API: test_gc.c). Most tests run the core under the shadow data
 * store (shadow.c), which fails on any release of a page without valid
 * data, any move of a discarded or overwritten page, any erase of a block
 * still holding data and any counter that disagrees with what it saw.
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

/* ---- configuration ---- */

static void test_config_init_defaults(void **state)
{
	struct ftl_config cfg;

	(void)state;
	memset(&cfg, 0xa5, sizeof(cfg));
	ftl_config_init(&cfg, 12345);
	assert_int_equal(cfg.page_size, 4096);
	assert_int_equal(cfg.pages_per_block, 256);
	assert_int_equal(cfg.logical_pages, 12345);
	assert_int_equal(cfg.op_percent, 7);
	assert_int_equal(cfg.gc_policy, FTL_GC_GREEDY);
	assert_int_equal(cfg.wl_threshold, 64);
	assert_int_equal(cfg.gc_low_blocks, 0);
	assert_int_equal(cfg.gc_high_blocks, 0);
	assert_int_equal(FTL_DEFAULT_PAGE_SIZE, 4096);
	assert_int_equal(FTL_DEFAULT_PAGES_PER_BLOCK, 256);
	assert_int_equal(FTL_DEFAULT_OP_PERCENT, 7);
	assert_int_equal(FTL_DEFAULT_WL_THRESHOLD, 64);
}

static void test_config_geometry(void **state)
{
	struct ftl_config cfg;
	struct ftl_geometry geo, geo2;
	const char *why = NULL;
	struct ftl *ftl;
	int err;

	(void)state;
	/* 1 GiB of 4 KiB pages, defaults: 1024 blocks + ceil(71.68) spare */
	ftl_config_init(&cfg, 1024 * 256);
	memset(&geo, 0xff, sizeof(geo));
	assert_int_equal(ftl_config_check(&cfg, &geo, &why), 0);
	assert_int_equal(geo.logical_pages, 262144);
	assert_int_equal(geo.pages_per_block, 256);
	assert_int_equal(geo.logical_blocks, 1024);
	assert_int_equal(geo.spare_blocks, 72);
	assert_int_equal(geo.physical_blocks, 1096);
	assert_int_equal(geo.physical_pages, 1096 * 256);
	assert_true(geo.open_blocks >= 1 && geo.open_blocks <= 2);
	assert_true(geo.gc_low_blocks >= 1);
	assert_true(geo.gc_high_blocks >= geo.gc_low_blocks);
	assert_true(geo.gc_high_blocks + geo.open_blocks <= geo.spare_blocks);
	/* geo and why are optional */
	assert_int_equal(ftl_config_check(&cfg, NULL, NULL), 0);

	/* the created FTL reports the same geometry */
	ftl = ftl_create(&cfg, NULL, NULL, &err);
	assert_non_null(ftl);
	assert_int_equal(err, 0);
	ftl_get_geometry(ftl, &geo2);
	assert_int_equal(geo2.logical_pages, geo.logical_pages);
	assert_int_equal(geo2.pages_per_block, geo.pages_per_block);
	assert_int_equal(geo2.logical_blocks, geo.logical_blocks);
	assert_int_equal(geo2.spare_blocks, geo.spare_blocks);
	assert_int_equal(geo2.physical_blocks, geo.physical_blocks);
	assert_int_equal(geo2.physical_pages, geo.physical_pages);
	assert_int_equal(geo2.open_blocks, geo.open_blocks);
	assert_int_equal(geo2.gc_low_blocks, geo.gc_low_blocks);
	assert_int_equal(geo2.gc_high_blocks, geo.gc_high_blocks);
	ftl_destroy(ftl);

	/* a ragged last logical block: 1000 pages of 64 per block, 30 % */
	small_cfg(&cfg, 64, 1000, 30, FTL_GC_FIFO);
	assert_int_equal(ftl_config_check(&cfg, &geo, NULL), 0);
	assert_int_equal(geo.logical_blocks, 16);
	assert_int_equal(geo.spare_blocks, 5);	/* ceil(300 / 64) */
	assert_int_equal(geo.physical_blocks, 21);
	assert_int_equal(geo.physical_pages, 21 * 64);

	/* spare = ceil(32 * op / 100 / 4): op 38 gives 4 (enough), 37 gives 3 */
	small_cfg(&cfg, 4, 32, 38, FTL_GC_GREEDY);
	assert_int_equal(ftl_config_check(&cfg, &geo, NULL), 0);
	assert_int_equal(geo.spare_blocks, FTL_MIN_SPARE_BLOCKS);
	assert_int_equal(geo.physical_blocks, 12);
	cfg.op_percent = 37;
	why = NULL;
	assert_int_equal(ftl_config_check(&cfg, &geo, &why), -EINVAL);
	assert_non_null(why);
	assert_true(why[0] != '\0');

	/* limits themselves are accepted */
	small_cfg(&cfg, FTL_MAX_PAGES_PER_BLOCK, 64 * 4096, 10, FTL_GC_GREEDY);
	cfg.page_size = FTL_MAX_PAGE_SIZE;
	assert_int_equal(ftl_config_check(&cfg, NULL, NULL), 0);
	small_cfg(&cfg, FTL_MIN_PAGES_PER_BLOCK, 16, 100, FTL_GC_GREEDY);
	cfg.page_size = 8192;
	assert_int_equal(ftl_config_check(&cfg, &geo, NULL), 0);
	assert_int_equal(geo.spare_blocks, 8);
}

struct bad_config {
	const char *what;
	void (*mutate)(struct ftl_config *cfg);
};

static void bad_ps_zero(struct ftl_config *c) { c->page_size = 0; }
static void bad_ps_2048(struct ftl_config *c) { c->page_size = 2048; }
static void bad_ps_4095(struct ftl_config *c) { c->page_size = 4095; }
static void bad_ps_6144(struct ftl_config *c) { c->page_size = 6144; }
static void bad_ps_12288(struct ftl_config *c) { c->page_size = 12288; }
static void bad_ps_32768(struct ftl_config *c) { c->page_size = 32768; }
static void bad_ppb_0(struct ftl_config *c) { c->pages_per_block = 0; }
static void bad_ppb_1(struct ftl_config *c) { c->pages_per_block = 1; }
static void bad_ppb_4097(struct ftl_config *c) { c->pages_per_block = 4097; }
static void bad_ppb_huge(struct ftl_config *c) { c->pages_per_block = U32_MAX; }
static void bad_op_0(struct ftl_config *c) { c->op_percent = 0; }
static void bad_op_101(struct ftl_config *c) { c->op_percent = 101; }
static void bad_op_huge(struct ftl_config *c) { c->op_percent = U32_MAX; }
static void bad_lp_0(struct ftl_config *c) { c->logical_pages = 0; }
static void bad_policy(struct ftl_config *c) { c->gc_policy = FTL_GC_NR_POLICIES; }
static void bad_spare(struct ftl_config *c)
{
	/* 3 logical blocks at 7 %: one spare block */
	c->logical_pages = 3 * 256;
}
static void bad_spare_tiny(struct ftl_config *c)
{
	c->pages_per_block = 4;
	c->logical_pages = 32;
	c->op_percent = 37;
}
static void bad_u32_lp(struct ftl_config *c) { c->logical_pages = 1ULL << 32; }
static void bad_u31_lp(struct ftl_config *c) { c->logical_pages = 1ULL << 31; }
static void bad_u32_phys(struct ftl_config *c)
{
	/* 2^31 - 1 logical pages fit, with 100 % spare the ppns do not */
	c->pages_per_block = 4096;
	c->logical_pages = FTL_MAX_LOGICAL_PAGES;
	c->op_percent = 100;
}
static void bad_u64_lp(struct ftl_config *c) { c->logical_pages = U64_MAX; }
static void bad_u64_lp_op(struct ftl_config *c)
{
	/* logical_pages * op_percent wraps a u64 */
	c->logical_pages = U64_MAX / 50;
	c->op_percent = 100;
}
static void bad_gc_low_1(struct ftl_config *c) { c->gc_low_blocks = 1; }
static void bad_gc_high_lt_low(struct ftl_config *c)
{
	c->gc_low_blocks = 6;
	c->gc_high_blocks = 5;
}
static void bad_gc_high_huge(struct ftl_config *c)
{
	/* 72 spare blocks cannot keep 80 free */
	c->gc_low_blocks = 2;
	c->gc_high_blocks = 80;
}

static void bad_classes_18(struct ftl_config *c) { c->placement_classes = 18; }
static void bad_classes_spare(struct ftl_config *c)
{
	/* 38 % of 32 pages: 4 spare blocks, enough for one class only */
	c->pages_per_block = 4;
	c->logical_pages = 32;
	c->op_percent = 38;
	c->placement_classes = 2;
}

static const struct bad_config bad_configs[] = {
	{ "page size 0", bad_ps_zero },
	{ "page size 2048", bad_ps_2048 },
	{ "page size 4095", bad_ps_4095 },
	{ "page size 6144 (not a power of two)", bad_ps_6144 },
	{ "page size 12288 (not a power of two)", bad_ps_12288 },
	{ "page size 32768", bad_ps_32768 },
	{ "pages per block 0", bad_ppb_0 },
	{ "pages per block 1", bad_ppb_1 },
	{ "pages per block 4097", bad_ppb_4097 },
	{ "pages per block U32_MAX", bad_ppb_huge },
	{ "op 0", bad_op_0 },
	{ "op 101", bad_op_101 },
	{ "op U32_MAX", bad_op_huge },
	{ "logical pages 0", bad_lp_0 },
	{ "unknown policy", bad_policy },
	{ "too few spare blocks", bad_spare },
	{ "too few spare blocks (tiny)", bad_spare_tiny },
	{ "2^32 logical pages", bad_u32_lp },
	{ "2^31 logical pages (the reverse map's stale bit)", bad_u31_lp },
	{ "physical pages beyond u32", bad_u32_phys },
	{ "U64_MAX logical pages", bad_u64_lp },
	{ "logical pages * op overflows", bad_u64_lp_op },
	{ "gc_low_blocks 1", bad_gc_low_1 },
	{ "gc_high < gc_low", bad_gc_high_lt_low },
	{ "gc_high beyond spare", bad_gc_high_huge },
	{ "18 placement classes", bad_classes_18 },
	{ "a second placement class without its spare block", bad_classes_spare },
};

static void test_config_rejects(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad_configs) / sizeof(bad_configs[0]); i++) {
		struct ftl_config cfg;
		struct ftl_geometry geo;
		const char *why = NULL;
		struct ftl *ftl;
		int rc, err = 12345;

		ftl_config_init(&cfg, 1024 * 256);
		/* the base configuration is fine */
		assert_int_equal(ftl_config_check(&cfg, NULL, NULL), 0);
		bad_configs[i].mutate(&cfg);
		rc = ftl_config_check(&cfg, &geo, &why);
		if (rc != -EINVAL)
			fail_msg("%s: ftl_config_check returned %d",
				 bad_configs[i].what, rc);
		if (!why || !why[0])
			fail_msg("%s: no reason given", bad_configs[i].what);
		assert_int_equal(ftl_config_check(&cfg, NULL, NULL), -EINVAL);

		ftl_port_quiet = true;
		ftl = ftl_create(&cfg, &shadow_ops, NULL, &err);
		ftl_port_quiet = false;
		if (ftl || err != -EINVAL)
			fail_msg("%s: ftl_create gave %p, err %d",
				 bad_configs[i].what, (void *)ftl, err);
	}
}

static void test_config_u32_limit(void **state)
{
	struct ftl_config cfg;
	struct ftl_geometry geo;

	(void)state;
	/*
	 * 2^31 - 1 logical pages (524288 blocks of 4096, the last one short)
	 * + 97 % spare (508560 blocks): 4,230,545,408 ppns fit
	 */
	small_cfg(&cfg, 4096, FTL_MAX_LOGICAL_PAGES, 97, FTL_GC_GREEDY);
	assert_int_equal(ftl_config_check(&cfg, &geo, NULL), 0);
	assert_int_equal(geo.spare_blocks, 508560);
	assert_int_equal(geo.physical_blocks, 1032848);
	assert_true(geo.physical_pages < U32_MAX);
	assert_int_equal(geo.physical_pages, 1032848ULL * 4096);
}

static void test_config_watermarks(void **state)
{
	struct ftl_config cfg;
	struct ftl_geometry geo;
	struct shadow sh;
	u64 i;

	(void)state;
	small_cfg(&cfg, 8, 256, 30, FTL_GC_GREEDY);	/* 10 spare */
	cfg.gc_low_blocks = 3;
	cfg.gc_high_blocks = 6;
	assert_int_equal(ftl_config_check(&cfg, &geo, NULL), 0);
	assert_int_equal(geo.gc_low_blocks, 3);
	assert_int_equal(geo.gc_high_blocks, 6);
	/* high defaults to at least low */
	cfg.gc_high_blocks = 0;
	assert_int_equal(ftl_config_check(&cfg, &geo, NULL), 0);
	assert_int_equal(geo.gc_low_blocks, 3);
	assert_true(geo.gc_high_blocks >= 3);

	/* and the FTL works with them */
	cfg.gc_high_blocks = 6;
	sh_init(&sh, &cfg);
	for (i = 0; i < 20 * 256; i++)
		OK(&sh, shadow_write(&sh, rnd_below(&rng_state, 256)));
	OK(&sh, shadow_verify(&sh));
	assert_true(sh.n.gc_runs > 0);
	sh_fini(&sh);
}

/* ---- create / destroy ---- */

static void test_create_null_ops(void **state)
{
	static const struct ftl_ops none = { 0 };
	struct ftl_config cfg;
	struct ftl_stats st;
	struct ftl *ftl;
	int err, pass;
	u64 i;
	u32 ppn;

	(void)state;
	ftl_destroy(NULL);
	small_cfg(&cfg, 4, 64, 50, FTL_GC_GREEDY);
	cfg.wl_threshold = 2;
	for (pass = 0; pass < 2; pass++) {
		ftl = ftl_create(&cfg, pass ? &none : NULL, NULL, &err);
		assert_non_null(ftl);
		assert_int_equal(err, 0);
		for (i = 0; i < 64 * 30; i++) {
			assert_int_equal(ftl_write(ftl, rnd_below(&rng_state, 64),
						   &ppn), 0);
			if (i % 7 == 0)
				assert_true(ftl_discard(ftl, rnd_below(&rng_state, 60),
							4) >= 0);
		}
		assert_int_equal(ftl_check(ftl), 0);
		ftl_get_stats(ftl, &st);
		assert_true(st.gc_runs > 0);
		ftl_destroy(ftl);
	}
}

static void test_fresh_state(void **state)
{
	struct ftl_config cfg;
	struct ftl_stats st;
	struct shadow sh;
	u64 i, meta;

	(void)state;
	small_cfg(&cfg, 16, 1000, 20, FTL_GC_COST_BENEFIT);
	sh_init(&sh, &cfg);
	ftl_get_stats(sh.ftl, &st);
	assert_int_equal(st.host_pages_written, 0);
	assert_int_equal(st.host_pages_read, 0);
	assert_int_equal(st.nand_pages_written, 0);
	assert_int_equal(st.erases, 0);
	assert_int_equal(st.gc_runs, 0);
	assert_int_equal(st.valid_pages, 0);
	assert_int_equal(st.free_blocks, sh.geo.physical_blocks);
	assert_int_equal(st.erase_min, 0);
	assert_int_equal(st.erase_max, 0);
	assert_int_equal(st.erase_mean_milli, 0);
	assert_int_equal(st.waf_milli, 0);
	for (i = 0; i < sh.geo.physical_blocks; i++)
		assert_int_equal(ftl_block_erase_count(sh.ftl, i), 0);
	for (i = 0; i < 1000; i++)
		assert_int_equal(ftl_lookup(sh.ftl, i), FTL_UNMAPPED);
	assert_int_equal(ftl_check(sh.ftl), 0);
	/* at least a forward and a reverse map of u32 */
	meta = ftl_metadata_bytes(sh.ftl);
	assert_true(meta > 0);
	assert_true(meta >= 4 * (sh.geo.logical_pages + sh.geo.physical_pages));
	sh_fini(&sh);

	/* and it grows with the capacity */
	small_cfg(&cfg, 16, 100000, 20, FTL_GC_COST_BENEFIT);
	sh_init(&sh, &cfg);
	assert_true(ftl_metadata_bytes(sh.ftl) > meta);
	sh_fini(&sh);
}

/* ---- read / write / lookup ---- */

static void test_out_of_range(void **state)
{
	struct ftl_config cfg;
	struct ftl_stats before, after;
	struct shadow sh;
	u64 lp = 100, bad[] = { 100, 101, 1ULL << 32, U64_MAX };
	u64 moves, rel, erases;
	size_t i;
	u32 ppn;

	(void)state;
	small_cfg(&cfg, 4, lp, 50, FTL_GC_GREEDY);
	sh_init(&sh, &cfg);
	for (i = 0; i < lp; i++)
		OK(&sh, shadow_write(&sh, i));
	OK(&sh, shadow_write(&sh, lp - 1));	/* the last page is fine */
	OK(&sh, shadow_read(&sh, lp - 1));
	ftl_get_stats(sh.ftl, &before);
	moves = sh.moves_total;
	rel = sh.releases_total;
	erases = sh.erases_total;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ppn = 0xdead;
		assert_int_equal(ftl_write(sh.ftl, bad[i], &ppn), -ERANGE);
		assert_int_equal(ppn, 0xdead);
		assert_int_equal(ftl_read(sh.ftl, bad[i], &ppn), -ERANGE);
		assert_int_equal(ppn, 0xdead);
	}
	ftl_get_stats(sh.ftl, &after);
	assert_memory_equal(&before, &after, sizeof(before));
	assert_int_equal(sh.moves_total, moves);
	assert_int_equal(sh.releases_total, rel);
	assert_int_equal(sh.erases_total, erases);
	sh_fini(&sh);
}

/*
 * ftl_lookup() beyond the capacity breaks its precondition: the core's
 * FTL_WARN_ON fires, which aborts in user space. Check it in a child.
 */
static void test_lookup_out_of_range_warns(void **state)
{
	struct ftl_config cfg;
	struct ftl *ftl;
	int err, status;
	pid_t pid;

	(void)state;
	small_cfg(&cfg, 4, 32, 50, FTL_GC_GREEDY);
	ftl = ftl_create(&cfg, NULL, NULL, &err);
	assert_non_null(ftl);
	assert_int_equal(ftl_lookup(ftl, 31), FTL_UNMAPPED);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		signal(SIGABRT, SIG_DFL);
		if (!freopen("/dev/null", "w", stderr))
			_exit(2);
		(void)ftl_lookup(ftl, 32);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
	ftl_destroy(ftl);
}

static void test_read_unwritten(void **state)
{
	struct ftl_config cfg;
	struct ftl_stats st;
	struct shadow sh;
	u32 ppn = 0;

	(void)state;
	small_cfg(&cfg, 4, 32, 50, FTL_GC_GREEDY);
	sh_init(&sh, &cfg);
	assert_int_equal(ftl_read(sh.ftl, 7, &ppn), 0);
	assert_int_equal(ppn, FTL_UNMAPPED);
	ftl_get_stats(sh.ftl, &st);
	assert_int_equal(st.unmapped_reads, 1);
	assert_int_equal(st.host_pages_read, 1);
	assert_int_equal(st.host_pages_written, 0);
	assert_int_equal(st.valid_pages, 0);
	sh.n.host_read++;
	sh.n.unmapped_reads++;
	OK(&sh, shadow_read(&sh, 0));
	OK(&sh, shadow_read(&sh, 31));
	OK(&sh, shadow_check_stats(&sh));
	assert_int_equal(sh.n.unmapped_reads, 3);
	sh_fini(&sh);
}

static void test_write_read(void **state)
{
	struct ftl_config cfg;
	struct ftl_stats st;
	struct shadow sh;
	u32 ppn, rppn = 0;

	(void)state;
	small_cfg(&cfg, 4, 32, 50, FTL_GC_GREEDY);
	sh_init(&sh, &cfg);
	ppn = FTL_UNMAPPED;
	assert_int_equal(ftl_write(sh.ftl, 5, &ppn), 0);
	assert_true(ppn < sh.geo.physical_pages);
	/* hand the page to the shadow like shadow_write() would */
	sh.programmed[ppn] = 1;
	sh.content[ppn] = sh.ref[5] = 0x1234;
	sh.p2l[ppn] = 5;
	sh.l2p[5] = ppn;
	sh.mapped++;
	sh.n.host_written++;

	assert_int_equal(ftl_read(sh.ftl, 5, &rppn), 0);
	assert_int_equal(rppn, ppn);
	sh.n.host_read++;
	assert_int_equal(ftl_lookup(sh.ftl, 5), ppn);
	ftl_get_stats(sh.ftl, &st);
	assert_int_equal(st.host_pages_written, 1);
	assert_int_equal(st.nand_pages_written, 1);
	assert_int_equal(st.host_pages_read, 1);	/* lookup not counted */
	assert_int_equal(st.unmapped_reads, 0);
	assert_int_equal(st.valid_pages, 1);
	assert_int_equal(st.waf_milli, 1000);
	OK(&sh, shadow_verify(&sh));

	/* a second page goes elsewhere */
	OK(&sh, shadow_write(&sh, 6));
	assert_int_not_equal(ftl_lookup(sh.ftl, 6), ppn);
	OK(&sh, shadow_read(&sh, 5));
	OK(&sh, shadow_read(&sh, 6));
	sh_fini(&sh);
}

static void test_overwrite_releases_once(void **state)
{
	struct ftl_config cfg;
	struct shadow sh;
	u32 old, now;
	u64 rel;
	int i;

	(void)state;
	small_cfg(&cfg, 8, 64, 50, FTL_GC_GREEDY);
	sh_init(&sh, &cfg);
	OK(&sh, shadow_write(&sh, 9));
	assert_int_equal(sh.releases_total, 0);
	for (i = 0; i < 200; i++) {
		old = ftl_lookup(sh.ftl, 9);
		rel = sh.releases_total;
		OK(&sh, shadow_write(&sh, 9));
		now = ftl_lookup(sh.ftl, 9);
		assert_int_not_equal(now, old);
		/* exactly one release, of the old page (GC may have moved
		 * it first, then the moved copy is the one released) */
		assert_int_equal(sh.releases_total, rel + 1);
		if (sh.last_released != old)
			assert_int_equal(sh.last_moved_from, old);
		assert_int_equal(sh.content[old], 0);
		OK(&sh, shadow_read(&sh, 9));
	}
	OK(&sh, shadow_verify(&sh));
	sh_fini(&sh);
}

/* ---- discard / unmap ---- */

static void test_discard_unwritten(void **state)
{
	struct ftl_config cfg;
	struct ftl_stats st;
	struct shadow sh;

	(void)state;
	small_cfg(&cfg, 4, 40, 50, FTL_GC_GREEDY);
	sh_init(&sh, &cfg);
	assert_int_equal(ftl_discard(sh.ftl, 3, 0), 0);
	assert_int_equal(ftl_discard(sh.ftl, 40, 0), 0);	/* empty, at the end */
	assert_int_equal(ftl_discard(sh.ftl, 7, 1), 0);
	assert_int_equal(ftl_discard(sh.ftl, 2, 30), 0);
	assert_int_equal(ftl_discard(sh.ftl, 0, 40), 0);
	ftl_get_stats(sh.ftl, &st);
	assert_int_equal(st.discard_calls, 5);
	assert_int_equal(st.pages_discarded, 0 + 0 + 1 + 30 + 40);
	assert_int_equal(st.valid_pages_discarded, 0);
	assert_int_equal(st.valid_pages, 0);
	assert_int_equal(sh.releases_total, 0);
	sh.n.discard_calls = 5;
	sh.n.pages_discarded = 71;
	OK(&sh, shadow_verify(&sh));
	sh_fini(&sh);
}

static void test_discard_out_of_range(void **state)
{
	struct ftl_config cfg;
	struct shadow sh;
	u64 i;

	(void)state;
	small_cfg(&cfg, 4, 40, 50, FTL_GC_GREEDY);
	sh_init(&sh, &cfg);
	for (i = 0; i < 40; i++)
		OK(&sh, shadow_write(&sh, i));
	for (i = 0; i < 2; i++) {
		bool unmap = i;

		OK(&sh, shadow_discard_bad(&sh, 39, 2, unmap));
		OK(&sh, shadow_discard_bad(&sh, 0, 41, unmap));
		OK(&sh, shadow_discard_bad(&sh, 40, 1, unmap));
		OK(&sh, shadow_discard_bad(&sh, 41, 0, unmap));
		OK(&sh, shadow_discard_bad(&sh, 1, U64_MAX, unmap));
		OK(&sh, shadow_discard_bad(&sh, 39, U64_MAX - 38, unmap));
		OK(&sh, shadow_discard_bad(&sh, U64_MAX, 2, unmap));
		OK(&sh, shadow_discard_bad(&sh, U64_MAX, 0, unmap));
	}
	for (i = 0; i < 40; i++)
		OK(&sh, shadow_read(&sh, i));
	OK(&sh, shadow_verify(&sh));
	sh_fini(&sh);
}

static void test_discard_written(void **state)
{
	struct ftl_config cfg;
	struct ftl_stats st;
	struct shadow sh;
	u32 ppns[10];
	u64 i;

	(void)state;
	small_cfg(&cfg, 4, 40, 50, FTL_GC_GREEDY);
	sh_init(&sh, &cfg);
	for (i = 0; i < 10; i++) {
		OK(&sh, shadow_write(&sh, i));
		ppns[i] = ftl_lookup(sh.ftl, i);
	}
	/* a range crossing block boundaries (direct call: the test plays
	 * the shadow's bookkeeping) */
	sh.rel_lo = 2;
	sh.rel_hi = 7;
	assert_int_equal(ftl_discard(sh.ftl, 2, 5), 5);
	sh.rel_lo = sh.rel_hi = 0;
	sh.mapped -= 5;
	for (i = 2; i < 7; i++) {
		assert_int_equal(sh.content[ppns[i]], 0);	/* released */
		assert_int_equal(ftl_lookup(sh.ftl, i), FTL_UNMAPPED);
		sh.ref[i] = 0;
	}
	assert_int_equal(sh.releases_total, 5);
	sh.n.discard_calls++;
	sh.n.pages_discarded += 5;
	sh.n.valid_pages_discarded += 5;
	ftl_get_stats(sh.ftl, &st);
	assert_int_equal(st.valid_pages, 5);
	assert_int_equal(st.valid_pages_discarded, 5);
	OK(&sh, shadow_verify(&sh));

	/* again: nothing left to release, nothing released twice */
	OK(&sh, shadow_discard(&sh, 2, 5, false));
	assert_int_equal(sh.releases_total, 5);
	/* a range mixing data and holes */
	OK(&sh, shadow_discard(&sh, 0, 20, false));
	assert_int_equal(sh.releases_total, 10);
	ftl_get_stats(sh.ftl, &st);
	assert_int_equal(st.valid_pages, 0);
	assert_int_equal(st.valid_pages_discarded, 10);
	assert_int_equal(st.pages_discarded, 30);
	assert_int_equal(st.discard_calls, 3);
	for (i = 0; i < 40; i++)
		OK(&sh, shadow_read(&sh, i));

	/* rewrite, overwrite, discard the whole device */
	for (i = 0; i < 40; i++)
		OK(&sh, shadow_write(&sh, i));
	for (i = 0; i < 40; i += 3)
		OK(&sh, shadow_write(&sh, i));
	OK(&sh, shadow_discard(&sh, 0, 40, false));
	ftl_get_stats(sh.ftl, &st);
	assert_int_equal(st.valid_pages, 0);
	OK(&sh, shadow_verify(&sh));
	sh_fini(&sh);
}

static void test_unmap_not_counted(void **state)
{
	struct ftl_config cfg;
	struct ftl_stats st;
	struct shadow sh;
	u64 i;

	(void)state;
	small_cfg(&cfg, 4, 40, 50, FTL_GC_FIFO);
	sh_init(&sh, &cfg);
	for (i = 0; i < 20; i++)
		OK(&sh, shadow_write(&sh, i));
	sh.rel_lo = 5;
	sh.rel_hi = 15;
	assert_int_equal(ftl_unmap(sh.ftl, 5, 10), 10);
	assert_int_equal(ftl_unmap(sh.ftl, 5, 10), 0);
	assert_int_equal(ftl_unmap(sh.ftl, 30, 0), 0);
	sh.rel_lo = sh.rel_hi = 0;
	assert_int_equal(sh.releases_total, 10);
	for (i = 5; i < 15; i++) {
		sh.ref[i] = 0;
		assert_int_equal(ftl_lookup(sh.ftl, i), FTL_UNMAPPED);
	}
	sh.mapped -= 10;
	ftl_get_stats(sh.ftl, &st);
	assert_int_equal(st.discard_calls, 0);
	assert_int_equal(st.pages_discarded, 0);
	assert_int_equal(st.valid_pages_discarded, 0);
	assert_int_equal(st.valid_pages, 10);
	OK(&sh, shadow_discard(&sh, 0, 40, true));
	OK(&sh, shadow_verify(&sh));
	sh_fini(&sh);
}

/* ---- stats ---- */

static void test_reset_stats(void **state)
{
	struct ftl_config cfg;
	struct ftl_stats before, st;
	struct shadow sh;
	u32 *ec;
	u64 i;
	u32 ppn;

	(void)state;
	small_cfg(&cfg, 4, 64, 50, FTL_GC_COST_BENEFIT);
	cfg.wl_threshold = 2;
	sh_init(&sh, &cfg);
	for (i = 0; i < 64 * 20; i++) {
		OK(&sh, shadow_write(&sh, rnd_below(&rng_state, 64)));
		OK(&sh, shadow_read(&sh, rnd_below(&rng_state, 64)));
		if (i % 10 == 0)
			OK(&sh, shadow_discard(&sh, rnd_below(&rng_state, 60), 3, false));
	}
	ftl_get_stats(sh.ftl, &before);
	assert_true(before.erases > 0 && before.unmapped_reads > 0);
	ec = calloc(sh.geo.physical_blocks, sizeof(*ec));
	assert_non_null(ec);
	for (i = 0; i < sh.geo.physical_blocks; i++)
		ec[i] = ftl_block_erase_count(sh.ftl, i);

	shadow_reset_stats(&sh);
	ftl_get_stats(sh.ftl, &st);
	assert_int_equal(st.host_pages_written, 0);
	assert_int_equal(st.host_pages_read, 0);
	assert_int_equal(st.nand_pages_written, 0);
	assert_int_equal(st.gc_relocations, 0);
	assert_int_equal(st.gc_runs, 0);
	assert_int_equal(st.wl_relocations, 0);
	assert_int_equal(st.wl_runs, 0);
	assert_int_equal(st.erases, 0);
	assert_int_equal(st.discard_calls, 0);
	assert_int_equal(st.pages_discarded, 0);
	assert_int_equal(st.valid_pages_discarded, 0);
	assert_int_equal(st.unmapped_reads, 0);
	assert_int_equal(st.waf_milli, 0);
	/* device state survives */
	assert_int_equal(st.valid_pages, before.valid_pages);
	assert_int_equal(st.free_blocks, before.free_blocks);
	assert_int_equal(st.erase_min, before.erase_min);
	assert_int_equal(st.erase_max, before.erase_max);
	assert_int_equal(st.erase_mean_milli, before.erase_mean_milli);
	for (i = 0; i < sh.geo.physical_blocks; i++)
		assert_int_equal(ftl_block_erase_count(sh.ftl, i), ec[i]);
	free(ec);
	assert_int_equal(ftl_check(sh.ftl), 0);
	/* and the mapping too */
	for (i = 0; i < 64; i++)
		OK(&sh, shadow_read(&sh, i));
	/* counting resumes from zero */
	assert_int_equal(ftl_write(sh.ftl, 64, &ppn), -ERANGE);
	for (i = 0; i < 64 * 5; i++)
		OK(&sh, shadow_write(&sh, rnd_below(&rng_state, 64)));
	OK(&sh, shadow_verify(&sh));
	ftl_get_stats(sh.ftl, &st);
	assert_int_equal(st.host_pages_written, 64 * 5);
	assert_int_equal(st.host_pages_read, 64);
	sh_fini(&sh);
}

/* ---- destroy ---- */

static void test_destroy_releases_all(void **state)
{
	struct ftl_config cfg;
	struct shadow sh;
	u64 i, valid, rel;

	(void)state;
	small_cfg(&cfg, 8, 200, 30, FTL_GC_GREEDY);
	sh_init(&sh, &cfg);
	for (i = 0; i < 200 * 6; i++)
		OK(&sh, shadow_write(&sh, rnd_below(&rng_state, 150)));
	OK(&sh, shadow_discard(&sh, 10, 30, false));
	OK(&sh, shadow_discard(&sh, 100, 7, true));
	OK(&sh, shadow_verify(&sh));
	valid = sh.mapped;
	assert_true(valid > 50 && valid < 150);
	rel = sh.releases_total;
	/* shadow_fini fails on a double or missing release */
	OK(&sh, shadow_fini(&sh));
	assert_int_equal(sh.releases_total - rel, valid);

	/* an FTL holding nothing releases nothing */
	sh_init(&sh, &cfg);
	OK(&sh, shadow_write(&sh, 3));
	OK(&sh, shadow_discard(&sh, 0, 200, false));
	rel = sh.releases_total;
	OK(&sh, shadow_fini(&sh));
	assert_int_equal(sh.releases_total, rel);
}

/* The lock-free lookup agrees with ftl_lookup() and counts nothing. */
static void test_lookup_unlocked(void **state)
{
	struct ftl_stats before, after;
	struct ftl_config cfg;
	struct shadow sh;
	u64 i;

	(void)state;
	small_cfg(&cfg, 8, 200, 30, FTL_GC_FIFO);
	sh_init(&sh, &cfg);
	for (i = 0; i < 200 * 4; i++)
		OK(&sh, shadow_write(&sh, rnd_below(&rng_state, 180)));
	OK(&sh, shadow_discard(&sh, 20, 40, false));
	ftl_get_stats(sh.ftl, &before);
	for (i = 0; i < 200; i++) {
		assert_int_equal(ftl_lookup_unlocked(sh.ftl, i),
				 ftl_lookup(sh.ftl, i));
		assert_int_equal(ftl_lookup_unlocked(sh.ftl, i), sh.l2p[i]);
	}
	assert_int_equal(ftl_lookup_unlocked(sh.ftl, 200), FTL_UNMAPPED);
	assert_int_equal(ftl_lookup_unlocked(sh.ftl, U64_MAX), FTL_UNMAPPED);
	ftl_get_stats(sh.ftl, &after);
	assert_int_equal(after.host_pages_read, before.host_pages_read);
	assert_int_equal(after.unmapped_reads, before.unmapped_reads);
	sh_fini(&sh);
}

/*
 * Placement classes: two open blocks each, host and GC (open_blocks, the
 * spare check),
 * ftl_write_class() refuses a class that is not configured and changes
 * nothing, each class's pages fill blocks of their own (the shadow checks
 * every program), and the per-class counters add up.
 */
static void test_placement_classes(void **state)
{
	struct ftl_class_stats cs[3], none;
	struct ftl_geometry geo;
	struct ftl_stats st;
	struct ftl_config cfg;
	struct shadow sh;
	u32 ppn = 7, c;
	u64 i;

	(void)state;
	small_cfg(&cfg, 4, 32, 38, FTL_GC_GREEDY);
	assert_int_equal(ftl_config_check(&cfg, &geo, NULL), 0);
	assert_int_equal(geo.open_blocks, 2);
	cfg.placement_classes = 1;
	assert_int_equal(ftl_config_check(&cfg, &geo, NULL), 0);
	assert_int_equal(geo.open_blocks, 2);
	small_cfg(&cfg, 4, 64, 50, FTL_GC_GREEDY);
	cfg.placement_classes = 3;
	assert_int_equal(ftl_config_check(&cfg, &geo, NULL), 0);
	assert_int_equal(geo.open_blocks, 6);	/* host and GC, per class */
	sh_init(&sh, &cfg);
	assert_int_equal(ftl_write_class(sh.ftl, 0, 3, &ppn), -EINVAL);
	assert_int_equal(ppn, 7);
	assert_int_equal(ftl_lookup(sh.ftl, 0), FTL_UNMAPPED);
	/* lpn % 3 is the class; 20 full overwrites, with GC */
	for (i = 0; i < 20 * 64; i++)
		assert_true(shadow_write_class(&sh, i % 64, (u32)(i % 64 % 3)));
	assert_true(shadow_verify(&sh));
	assert_int_equal(ftl_check(sh.ftl), 0);
	ftl_get_stats(sh.ftl, &st);
	for (c = 0; c < 3; c++)
		ftl_get_class_stats(sh.ftl, c, &cs[c]);
	assert_int_equal(cs[0].pages_written, 20 * 22);
	assert_int_equal(cs[1].pages_written, 20 * 21);
	assert_int_equal(cs[2].pages_written, 20 * 21);
	assert_int_equal(cs[0].pages_written + cs[1].pages_written +
			 cs[2].pages_written, st.host_pages_written);
	/* a class fills a block every 4 of its pages, less the open one */
	for (c = 0; c < 3; c++)
		assert_int_equal(cs[c].blocks_filled,
				 (cs[c].pages_written - 1) / 4);
	ftl_get_class_stats(sh.ftl, 3, &none);
	assert_int_equal(none.pages_written + none.blocks_filled, 0);
	ftl_get_class_stats(sh.ftl, FTL_MAX_CLASSES, &none);
	assert_int_equal(none.pages_written + none.blocks_filled, 0);
	/* GC ran; each class's blocks died whole (sequential overwrites) */
	assert_true(st.erases > 0);
	assert_int_equal(st.gc_relocations, 0);
	/* counters, reset with the others */
	shadow_reset_stats(&sh);
	ftl_get_class_stats(sh.ftl, 1, &cs[1]);
	assert_int_equal(cs[1].pages_written + cs[1].blocks_filled, 0);
	sh_fini(&sh);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_init_defaults),
		cmocka_unit_test(test_config_geometry),
		cmocka_unit_test(test_config_rejects),
		cmocka_unit_test(test_config_u32_limit),
		cmocka_unit_test(test_config_watermarks),
		cmocka_unit_test(test_create_null_ops),
		cmocka_unit_test(test_fresh_state),
		cmocka_unit_test(test_out_of_range),
		cmocka_unit_test(test_lookup_out_of_range_warns),
		cmocka_unit_test(test_read_unwritten),
		cmocka_unit_test(test_write_read),
		cmocka_unit_test(test_overwrite_releases_once),
		cmocka_unit_test(test_discard_unwritten),
		cmocka_unit_test(test_discard_out_of_range),
		cmocka_unit_test(test_discard_written),
		cmocka_unit_test(test_unmap_not_counted),
		cmocka_unit_test(test_reset_stats),
		cmocka_unit_test(test_destroy_releases_all),
		cmocka_unit_test(test_lookup_unlocked),
		cmocka_unit_test(test_placement_classes),
	};

	return cmocka_run_group_tests_name("api", tests, NULL, NULL);
}
