// SPDX-License-Identifier: GPL-2.0
/*
 * test_timing.c - unit tests of the NAND timing model (timing.h).
 *
 * Every expected time below is worked out by hand from the geometry in
 * the comment above it, not recomputed with the model's formulas, so a
 * wrong formula in timing.c cannot agree with itself here.
 *
 * The common geometry (small_model()): 2 channels * 2 dies = 4 dies,
 * 16 pages per block, 4096-byte pages, tR 50 us, tPROG 600 us,
 * tBERS 2000 us, 200 MB/s channels. Page p of a block is on die p % 4,
 * die d on channel d % 2: dies 0 and 2 share channel 0, dies 1 and 3
 * channel 1. One transfer: 4096 B / 200 MB/s = 20.48 us = 20480 ns.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "timing.h"

#define TR	50000ULL	/* ns */
#define TPROG	600000ULL
#define TBERS	2000000ULL
#define XFER	20480ULL

static void small_cfg(struct ftl_timing_config *cfg)
{
	ftl_timing_config_init(cfg, 4096, 16);
	cfg->channels = 2;
	cfg->dies_per_channel = 2;
}

static void small_model(struct ftl_timing *t)
{
	struct ftl_timing_config cfg;

	small_cfg(&cfg);
	assert_int_equal(ftl_timing_init(t, &cfg), 0);
}

static void test_config_defaults(void **state)
{
	struct ftl_timing_config cfg;
	struct ftl_timing t;

	(void)state;
	ftl_timing_config_init(&cfg, 4096, 256);
	assert_int_equal(cfg.channels, 4);
	assert_int_equal(cfg.dies_per_channel, 2);
	assert_int_equal(cfg.read_us, 50);
	assert_int_equal(cfg.program_us, 600);
	assert_int_equal(cfg.erase_us, 2000);
	assert_int_equal(cfg.channel_mbps, 200);
	assert_int_equal(ftl_timing_config_check(&cfg, NULL), 0);
	assert_int_equal(ftl_timing_init(&t, &cfg), 0);
	assert_int_equal(t.dies, 8);
	assert_int_equal(t.read_ns, TR);
	assert_int_equal(t.program_ns, TPROG);
	assert_int_equal(t.erase_ns, TBERS);
	assert_int_equal(t.xfer_ns, XFER);
	ftl_timing_free(&t);
}

/* 4096000 / 3 = 1365333.3 ns: rounded up, a transfer is never free. */
static void test_xfer_rounds_up(void **state)
{
	struct ftl_timing_config cfg;
	struct ftl_timing t;

	(void)state;
	small_cfg(&cfg);
	cfg.channel_mbps = 3;
	assert_int_equal(ftl_timing_init(&t, &cfg), 0);
	assert_int_equal(t.xfer_ns, 1365334);
	ftl_timing_free(&t);
	cfg.page_size = 16384;
	cfg.channel_mbps = FTL_TIMING_MAX_MBPS;	/* 163.84 ns */
	assert_int_equal(ftl_timing_init(&t, &cfg), 0);
	assert_int_equal(t.xfer_ns, 164);
	ftl_timing_free(&t);
}

struct field_case {
	const char *name;
	size_t off;
	u32 max;
};

#define FIELD(f, max) { #f, offsetof(struct ftl_timing_config, f), max }

static const struct field_case fields[] = {
	FIELD(channels, 64),
	FIELD(dies_per_channel, 64),
	FIELD(read_us, 1000000),
	FIELD(program_us, 1000000),
	FIELD(erase_us, 1000000),
	FIELD(channel_mbps, 100000),
};

static u32 *field(struct ftl_timing_config *cfg, const struct field_case *f)
{
	return (u32 *)((char *)cfg + f->off);
}

static void expect_reject(const struct ftl_timing_config *cfg,
			  const char *name, u32 v)
{
	struct ftl_timing t;
	const char *why = NULL;

	if (ftl_timing_config_check(cfg, &why) != -EINVAL)
		fail_msg("%s = %u accepted", name, v);
	if (!why || !strstr(why, name))
		fail_msg("%s = %u: reason '%s' does not name it", name, v,
			 why ? why : "(null)");
	assert_int_equal(ftl_timing_init(&t, cfg), -EINVAL);
	ftl_timing_free(&t);	/* safe on a model init refused */
}

/* Each field at 0 and max + 1 is refused by name; 1 and max are fine. */
static void test_config_rejects(void **state)
{
	struct ftl_timing_config cfg;
	const char *why = "stale";
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const struct field_case *f = &fields[i];

		small_cfg(&cfg);
		*field(&cfg, f) = 0;
		expect_reject(&cfg, f->name, 0);
		*field(&cfg, f) = f->max + 1;
		expect_reject(&cfg, f->name, f->max + 1);
		*field(&cfg, f) = f->max;
		assert_int_equal(ftl_timing_config_check(&cfg, &why), 0);
		assert_null(why);
		*field(&cfg, f) = 1;
		assert_int_equal(ftl_timing_config_check(&cfg, NULL), 0);
	}
	small_cfg(&cfg);
	cfg.page_size = 0;
	expect_reject(&cfg, "page_size", 0);
	small_cfg(&cfg);
	cfg.pages_per_block = 0;
	expect_reject(&cfg, "pages_per_block", 0);
}

/* Page p of a block on die p % dies: the page in the block counts. */
static void test_die_mapping(void **state)
{
	struct ftl_timing_config cfg;
	struct ftl_timing t;

	(void)state;
	small_model(&t);
	assert_int_equal(ftl_timing_die(&t, 0), 0);
	assert_int_equal(ftl_timing_die(&t, 1), 1);
	assert_int_equal(ftl_timing_die(&t, 3), 3);
	assert_int_equal(ftl_timing_die(&t, 4), 0);
	assert_int_equal(ftl_timing_die(&t, 15), 3);
	assert_int_equal(ftl_timing_die(&t, 16), 0);	/* block 1, page 0 */
	assert_int_equal(ftl_timing_die(&t, 17), 1);
	ftl_timing_free(&t);

	/* 6 pages per block over 4 dies: block 1 starts on die 0 again */
	small_cfg(&cfg);
	cfg.pages_per_block = 6;
	assert_int_equal(ftl_timing_init(&t, &cfg), 0);
	assert_int_equal(ftl_timing_die(&t, 5), 1);
	assert_int_equal(ftl_timing_die(&t, 6), 0);
	assert_int_equal(ftl_timing_die(&t, 11), 1);
	assert_int_equal(ftl_timing_die(&t, 12), 0);
	ftl_timing_free(&t);
}

/* Queue depth 1: a read is tR + one transfer, a program one transfer + tPROG. */
static void test_single_ops(void **state)
{
	struct ftl_timing t;
	struct ftl_timing_req r;

	(void)state;
	small_model(&t);
	ftl_timing_req_start(&r, 1000);
	ftl_timing_host_read(&t, &r, 5);
	assert_int_equal(r.done, 1000 + 70480);
	assert_int_equal(ftl_timing_req_end(&t, &r), 70480);

	/* long after: die 1 and channel 1 idle again */
	ftl_timing_req_start(&r, 10000000);
	ftl_timing_host_program(&t, &r, 5);
	assert_int_equal(ftl_timing_req_end(&t, &r), 620480);
	assert_int_equal(t.st.last_done_ns, 10620480);

	/* a request with no operation (an unmapped read) takes no time */
	ftl_timing_req_start(&r, 20000000);
	assert_int_equal(ftl_timing_req_end(&t, &r), 0);
	ftl_timing_free(&t);
}

/*
 * Two reads of die 0 at time 0: the second senses after the first
 * (50..100 us), while the first's data crosses channel 0 (50..70.48 us);
 * its own transfer follows at 100 us: done 120.48 us, not 2 * 70.48.
 */
static void test_same_die_reads(void **state)
{
	struct ftl_timing t;
	struct ftl_timing_req a, b;

	(void)state;
	small_model(&t);
	ftl_timing_req_start(&a, 0);
	ftl_timing_host_read(&t, &a, 0);
	ftl_timing_req_start(&b, 0);
	ftl_timing_host_read(&t, &b, 4);
	assert_int_equal(ftl_timing_req_end(&t, &a), 70480);
	assert_int_equal(ftl_timing_req_end(&t, &b), 120480);
	assert_int_equal(t.die_free[0], 100000);
	assert_int_equal(t.chan_free[0], 120480);
	ftl_timing_free(&t);
}

/*
 * Dies 0 and 2 share channel 0: both sense in parallel (0..50 us), the
 * transfers queue (50..70.48, 70.48..90.96 us). Die 1 on channel 1 is
 * not held up by either.
 */
static void test_shared_channel_reads(void **state)
{
	struct ftl_timing t;
	struct ftl_timing_req a, b, c;

	(void)state;
	small_model(&t);
	ftl_timing_req_start(&a, 0);
	ftl_timing_host_read(&t, &a, 0);
	ftl_timing_req_start(&b, 0);
	ftl_timing_host_read(&t, &b, 2);
	ftl_timing_req_start(&c, 0);
	ftl_timing_host_read(&t, &c, 1);
	assert_int_equal(ftl_timing_req_end(&t, &a), 70480);
	assert_int_equal(ftl_timing_req_end(&t, &b), 90960);
	assert_int_equal(ftl_timing_req_end(&t, &c), 70480);
	assert_int_equal(t.die_free[0], 50000);
	assert_int_equal(t.die_free[2], 50000);
	ftl_timing_free(&t);
}

/*
 * Relocation of ppn 0 (die 0, channel 0) to ppn 17 (die 1, channel 1):
 * read 0..50 us, out 50..70.48, in on channel 1 70.48..90.96, program
 * 90.96..690.96 us. A host program of ppn 18 (die 2, channel 0) in the
 * same request waits for it: in 690.96..711.44, program until
 * 1311.44 us.
 */
static void test_relocation_then_host_program(void **state)
{
	struct ftl_timing t;
	struct ftl_timing_req r, other;

	(void)state;
	small_model(&t);
	ftl_timing_req_start(&r, 0);
	ftl_timing_relocate(&t, &r, 0, 17);
	assert_int_equal(r.gc_done, 690960);
	assert_int_equal(r.done, 690960);
	assert_int_equal(t.chan_free[0], 70480);
	assert_int_equal(t.chan_free[1], 90960);
	assert_int_equal(t.die_free[0], 50000);
	assert_int_equal(t.die_free[1], 690960);
	ftl_timing_host_program(&t, &r, 18);
	assert_int_equal(r.done, 1311440);

	/*
	 * Another request at time 0 programs ppn 19 (die 3, channel 1): it
	 * does not wait for the GC of the first request, nor for channel 1
	 * (busy from 70.48 us only): in 0..20.48, program until 620.48 us.
	 */
	ftl_timing_req_start(&other, 0);
	ftl_timing_host_program(&t, &other, 19);
	assert_int_equal(ftl_timing_req_end(&t, &other), 620480);
	assert_int_equal(ftl_timing_req_end(&t, &r), 1311440);
	ftl_timing_free(&t);
}

/*
 * An erase occupies every die for tBERS, starting on each when it is
 * free: die 0 after a 70.48 us read ends at 50 + 2000 us (the die is free
 * once the page is sensed), the others at 2000 us. A host program in the
 * same request waits for the last of them; a read of die 2 (channel 0,
 * idle since 70.48 us) in another request waits for die 2's erase only.
 */
static void test_erase_all_dies(void **state)
{
	struct ftl_timing t;
	struct ftl_timing_req r, other;
	u32 d;

	(void)state;
	small_model(&t);
	ftl_timing_req_start(&r, 0);
	ftl_timing_host_read(&t, &r, 0);
	ftl_timing_erase(&t, &r, 7);
	assert_int_equal(t.die_free[0], 2050000);
	for (d = 1; d < 4; d++)
		assert_int_equal(t.die_free[d], 2000000);
	assert_int_equal(r.gc_done, 2050000);
	assert_int_equal(r.done, 2050000);
	ftl_timing_host_program(&t, &r, 1);	/* die 1, channel 1 */
	assert_int_equal(r.done, 2050000 + 20480 + 600000);
	ftl_timing_req_start(&other, 0);
	ftl_timing_host_read(&t, &other, 2);
	assert_int_equal(ftl_timing_req_end(&t, &other), 2070480);
	assert_int_equal(t.st.erase_ns, 4 * TBERS);
	ftl_timing_free(&t);
}

/*
 * An operation waiting for its input leaves its die or channel idle
 * before it, and later operations use that time: die 0 programs until
 * 620.48 us, so a read of it senses 620.48..670.48 us and crosses
 * channel 0 at 670.48..690.96 us; a read of die 2 issued afterwards, at
 * time 0, senses 0..50 us and crosses the idle channel at 50..70.48 us.
 * (Channel 0 is busy 0..20.48 us with the program's data.)
 */
static void test_idle_time_used(void **state)
{
	struct ftl_timing t;
	struct ftl_timing_req w, a, b;

	(void)state;
	small_model(&t);
	ftl_timing_req_start(&w, 0);
	ftl_timing_host_program(&t, &w, 0);	/* die 0 until 620.48 us */
	ftl_timing_req_start(&a, 0);
	ftl_timing_host_read(&t, &a, 4);	/* die 0 again */
	assert_int_equal(ftl_timing_req_end(&t, &a), 620480 + 70480);
	ftl_timing_req_start(&b, 0);
	ftl_timing_host_read(&t, &b, 2);	/* die 2, channel 0 idle */
	assert_int_equal(ftl_timing_req_end(&t, &b), 70480);
	/*
	 * Another read of die 2 senses 50..100 us; channel 0 is idle from
	 * 70.48 to 670.48 us: its transfer takes 100..120.48 us.
	 */
	ftl_timing_req_start(&b, 0);
	ftl_timing_host_read(&t, &b, 6);
	assert_int_equal(ftl_timing_req_end(&t, &b), 120480);
	ftl_timing_free(&t);
}

/*
 * A die remembers FTL_TIMING_GAPS idle periods: 17 reads of die 0 at
 * 100, 200, ..., 1700 us leave 17 before its busy time ends (0..100,
 * 150..200, ...); the first is forgotten, so a read at time 0 senses in
 * the second, 150..200 us (using it up), and crosses channel 0 (idle
 * 170.48..250 us) at 200..220.48 us.
 */
static void test_idle_periods_bounded(void **state)
{
	struct ftl_timing t;
	struct ftl_timing_req r;
	u64 i;

	(void)state;
	assert_int_equal(FTL_TIMING_GAPS, 16);
	small_model(&t);
	for (i = 1; i <= 17; i++) {
		ftl_timing_req_start(&r, i * 100000);
		ftl_timing_host_read(&t, &r, 0);
		assert_int_equal(ftl_timing_req_end(&t, &r), 70480);
	}
	assert_int_equal(t.die_gaps[0].n, 16);
	assert_int_equal(t.die_gaps[0].g[0].start, 150000);
	ftl_timing_req_start(&r, 0);
	ftl_timing_host_read(&t, &r, 4);
	assert_int_equal(ftl_timing_req_end(&t, &r), 220480);
	/* 150..200 us taken whole: the next idle period is first now */
	assert_int_equal(t.die_gaps[0].n, 15);
	assert_int_equal(t.die_gaps[0].g[0].start, 250000);
	ftl_timing_free(&t);
}

/* 2 pages per block over 4 dies: a block spans, and erases, dies 0 and 1. */
static void test_erase_small_block(void **state)
{
	struct ftl_timing_config cfg;
	struct ftl_timing t;
	struct ftl_timing_req r;

	(void)state;
	small_cfg(&cfg);
	cfg.pages_per_block = 2;
	assert_int_equal(ftl_timing_init(&t, &cfg), 0);
	ftl_timing_req_start(&r, 0);
	ftl_timing_erase(&t, &r, 3);
	assert_int_equal(t.die_free[0], 2000000);
	assert_int_equal(t.die_free[1], 2000000);
	assert_int_equal(t.die_free[2], 0);
	assert_int_equal(t.die_free[3], 0);
	assert_int_equal(t.st.erase_ns, 2 * TBERS);
	assert_int_equal(ftl_timing_req_end(&t, &r), 2000000);
	ftl_timing_free(&t);
}

/*
 * The counters after: request 1 relocates 0 -> 17, erases, programs 18;
 * request 2 reads 5 and 6. Die time: host reads 2 * 50 us, host program
 * 600 us, GC read 50 us, GC program 600 us, erase 4 dies * 2000 us;
 * channel time: 5 transfers (relocation out and in, the program, the two
 * reads) of 20.48 us.
 */
static void test_stats(void **state)
{
	struct ftl_timing t;
	struct ftl_timing_req r1, r2;
	u64 l1, l2;

	(void)state;
	small_model(&t);
	ftl_timing_req_start(&r1, 0);
	ftl_timing_relocate(&t, &r1, 0, 17);	/* 2 transfers */
	ftl_timing_erase(&t, &r1, 0);		/* none */
	ftl_timing_host_program(&t, &r1, 18);	/* 1 transfer */
	l1 = ftl_timing_req_end(&t, &r1);
	ftl_timing_req_start(&r2, 5000000);
	ftl_timing_host_read(&t, &r2, 5);	/* 1 transfer */
	ftl_timing_host_read(&t, &r2, 6);	/* 1 transfer */
	l2 = ftl_timing_req_end(&t, &r2);

	/*
	 * r1: relocation done 690.96 us; erase on die 1 from 690.96 to
	 * 2690.96 us (on die 0 from 50 us, on dies 2 and 3 from 0); program
	 * of 18 (die 2) after the last: in 2690.96..2711.44, done 3311.44 us.
	 */
	assert_int_equal(l1, 3311440);
	/*
	 * r2 at 5 ms, dies 1 and 2 idle by then: both sense 5000..5050 us,
	 * ppn 5 (channel 1) and ppn 6 (channel 0) are out by 5070.48 us.
	 */
	assert_int_equal(l2, 70480);
	assert_int_equal(t.st.host_read_ns, 2 * TR);
	assert_int_equal(t.st.host_program_ns, TPROG);
	assert_int_equal(t.st.gc_read_ns, TR);
	assert_int_equal(t.st.gc_program_ns, TPROG);
	assert_int_equal(t.st.erase_ns, 4 * TBERS);
	assert_int_equal(t.st.channel_ns, 5 * XFER);
	assert_int_equal(t.st.requests, 2);
	assert_int_equal(t.st.latency_ns_total, 3311440 + 70480);
	assert_int_equal(t.st.last_done_ns, 5070480);
	ftl_timing_free(&t);
}

/* Any of the 4 allocations failing: -ENOMEM, nothing leaked (ASan checks). */
/*
 * A power loss at 1 ms while every die is booked for ten erases (0..20 ms)
 * and channel 1 for a read behind them: from 1 ms every die and channel is
 * free, so a read of die 0 arriving at 1 ms takes tR + one transfer, not
 * 19 ms more; one that was free before the loss keeps its time.
 */
static void test_abort(void **state)
{
	struct ftl_timing t;
	struct ftl_timing_req r;
	int i;

	(void)state;
	small_model(&t);
	ftl_timing_req_start(&r, 0);
	for (i = 0; i < 10; i++)
		ftl_timing_erase(&t, &r, 0);
	assert_int_equal(t.die_free[0], 10 * TBERS);
	ftl_timing_req_start(&r, 0);
	ftl_timing_host_read(&t, &r, 1);
	assert_int_equal(t.chan_free[1], 10 * TBERS + TR + XFER);
	ftl_timing_abort(&t, 1000000);
	for (i = 0; i < 4; i++) {
		assert_int_equal(t.die_free[i], 1000000);
		assert_int_equal(t.die_gaps[i].n, 0);
	}
	assert_int_equal(t.chan_free[0], 0);
	assert_int_equal(t.chan_free[1], 1000000);
	assert_int_equal(t.st.last_done_ns, 1000000);
	ftl_timing_req_start(&r, 1000000);
	ftl_timing_host_read(&t, &r, 0);
	assert_int_equal(ftl_timing_req_end(&t, &r), TR + XFER);
	assert_int_equal(t.st.last_done_ns, 1000000 + TR + XFER);
	ftl_timing_free(&t);
}

static void test_init_enomem(void **state)
{
	struct ftl_timing_config cfg;
	struct ftl_timing t;
	unsigned long n;

	(void)state;
	small_cfg(&cfg);
	for (n = 1; n <= 4; n++) {
		ftl_port_fail_alloc_in = n;
		assert_int_equal(ftl_timing_init(&t, &cfg), -ENOMEM);
		assert_null(t.die_free);
		assert_null(t.chan_free);
		assert_null(t.die_gaps);
		assert_null(t.chan_gaps);
		ftl_timing_free(&t);
	}
	ftl_port_fail_alloc_in = 5;
	assert_int_equal(ftl_timing_init(&t, &cfg), 0);
	ftl_port_fail_alloc_in = 0;
	ftl_timing_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_defaults),
		cmocka_unit_test(test_xfer_rounds_up),
		cmocka_unit_test(test_config_rejects),
		cmocka_unit_test(test_die_mapping),
		cmocka_unit_test(test_single_ops),
		cmocka_unit_test(test_same_die_reads),
		cmocka_unit_test(test_shared_channel_reads),
		cmocka_unit_test(test_relocation_then_host_program),
		cmocka_unit_test(test_erase_all_dies),
		cmocka_unit_test(test_idle_time_used),
		cmocka_unit_test(test_idle_periods_bounded),
		cmocka_unit_test(test_erase_small_block),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_abort),
		cmocka_unit_test(test_init_enomem),
	};

	return cmocka_run_group_tests_name("timing", tests, NULL, NULL);
}
