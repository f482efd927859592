/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timed.h - ftlsim --timing: a closed-loop host on the NAND timing model
 * (../../ftl/timing.h).
 *
 * The engine keeps queue_depth host requests outstanding on a simulated
 * clock (ns from 0): the next request arrives when the earliest
 * outstanding one completes, so requests are issued in arrival order.
 * Each request's pages go through the FTL core (ftl_write()/ftl_read())
 * and the physical pages they land on through the timing model; the
 * core's garbage collection reaches the model through struct ftl_ops
 * (timed_ftl_ops), in the request that caused it. README.md, "Timing
 * model", has the semantics and the bounds the validation checks.
 *
 * Every name here starts with timed_ (tests/vm/tools/ftlsim.c builds
 * ftlsim as one translation unit).
 */
#ifndef FTLSIM_TIMED_H
#define FTLSIM_TIMED_H

#include <stdio.h>

#include "../../ftl/ftl.h"
#include "../../ftl/timing.h"

#define TIMED_MAX_QUEUE_DEPTH		1024
#define TIMED_MAX_REQUEST_PAGES		1024
#define TIMED_DEFAULT_QUEUE_DEPTH	32

/**
 * struct timed_params - what the command line sets
 * @cfg: the model's geometry and costs (page_size and pages_per_block are
 *	taken from the FTL by timed_init())
 * @queue_depth: outstanding host requests, [1, TIMED_MAX_QUEUE_DEPTH]
 * @request_pages: pages per host request, [1, TIMED_MAX_REQUEST_PAGES]
 * @read_fraction: fraction of requests that read, [0, 1)
 */
struct timed_params {
	struct ftl_timing_config cfg;
	u32 queue_depth;
	u32 request_pages;
	double read_fraction;
};

/**
 * struct timed_lat - latencies of the measured requests of one kind
 * @v: every latency in ns, in issue order until timed_summary() sorts it
 * @n: how many
 * @cap: allocated entries
 * @sum: their total
 */
struct timed_lat {
	u64 *v;
	u64 n;
	u64 cap;
	u64 sum;
};

/**
 * struct timed_summary - a latency distribution, in microseconds
 * @mean: arithmetic mean
 * @p50: median (nearest rank)
 * @p99: 99th percentile (nearest rank)
 * @p999: 99.9th percentile (nearest rank)
 * @max: largest
 * @count: requests
 */
struct timed_summary {
	double mean, p50, p99, p999, max;
	u64 count;
};

/**
 * struct timed - the closed-loop engine
 * @p: parameters
 * @model: the NAND timing model
 * @ftl: the FTL core, created with timed_ftl_ops and this engine as ctx
 * @logical_pages: the FTL's, for wrapping multi-page requests
 * @done: min-heap of the completion times of the outstanding requests
 * @req: the request being issued (GC in its ftl_write() is charged to it)
 * @in_req: @req is open
 * @now: arrival time of the latest request (the simulated clock)
 * @measuring: after timed_measure_start()
 * @t0: arrival of the first measured request
 * @t0_set: @t0 is known
 * @last_done: latest completion of a measured request
 * @st0: the model's counters when measuring started
 * @rd: latencies of measured read requests
 * @wr: latencies of measured write requests
 * @pages_read: host pages read by measured requests
 * @pages_written: host pages written by measured requests
 * @csv_ns: clock at the previous CSV sample
 * @csv_pages: host pages read + written at the previous CSV sample
 */
struct timed {
	struct timed_params p;
	struct ftl_timing model;
	struct ftl *ftl;
	u64 logical_pages;
	u64 *done;
	struct ftl_timing_req req;
	bool in_req;
	u64 now;
	bool measuring;
	u64 t0;
	bool t0_set;
	u64 last_done;
	struct ftl_timing_stats st0;
	struct timed_lat rd, wr;
	u64 pages_read, pages_written;
	u64 csv_ns, csv_pages;
};

/**
 * struct timed_source - where the requests come from (ftlsim's workload)
 * @ctx: passed to the callbacks
 * @next: the next request: returns true for a read, false for a write,
 *	and its first logical page in *@lpn. Trims happen inside (they take
 *	no flash time and no queue slot).
 * @write: write one host page; false if the device refused it (worn
 *	out), which ends the run
 */
struct timed_source {
	void *ctx;
	bool (*next)(void *ctx, u64 *lpn);
	bool (*write)(void *ctx, u64 lpn, u32 *ppn);
};

/* Pass to ftl_create() with the engine as ctx. */
extern const struct ftl_ops timed_ftl_ops;

/**
 * timed_params_init() - the defaults
 * @p: parameters
 */
void timed_params_init(struct timed_params *p);

/**
 * timed_init() - set the engine up, every die idle at time 0
 * @e: the engine
 * @p: parameters
 * @page_size: the FTL's page size
 * @pages_per_block: the FTL's pages per block
 * @why: if not NULL, receives the reason for -EINVAL (naming the field)
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int timed_init(struct timed *e, const struct timed_params *p, u32 page_size,
	       u32 pages_per_block, const char **why);

/**
 * timed_attach() - the FTL created with timed_ftl_ops and @e
 * @e: the engine
 * @ftl: the FTL
 */
void timed_attach(struct timed *e, struct ftl *ftl);

/**
 * timed_free() - free what the engine allocated
 * @e: the engine
 */
void timed_free(struct timed *e);

/**
 * timed_run() - issue requests until @pages host pages are written
 * @e: the engine
 * @src: the workload
 * @pages: host page writes to make (reads do not count)
 *
 * The last write request is cut to the pages still wanted.
 *
 * Return: host pages written; fewer than @pages only if the device wore out.
 */
u64 timed_run(struct timed *e, const struct timed_source *src, u64 pages);

/**
 * timed_measure_start() - what follows is the measured phase
 * @e: the engine
 *
 * Forgets latencies and takes the model's counters as the new zero; the
 * dies keep their state.
 */
void timed_measure_start(struct timed *e);

/**
 * timed_seconds() - modeled length of the measured phase
 * @e: the engine
 *
 * Return: seconds from the first measured arrival to the last measured
 * completion.
 */
double timed_seconds(const struct timed *e);

/**
 * timed_json() - the JSON fields of --timing, each line ending in ","
 * @e: the engine (its latency arrays get sorted)
 * @f: output
 */
void timed_json(struct timed *e, FILE *f);

/**
 * timed_human() - the "timing:" lines of the text report
 * @e: the engine (its latency arrays get sorted)
 * @f: output
 */
void timed_human(struct timed *e, FILE *f);

/**
 * timed_csv_header() - the columns --timing appends to --csv
 * @f: output
 */
void timed_csv_header(FILE *f);

/**
 * timed_csv_row() - this sample's values of those columns
 * @e: the engine
 * @f: output
 */
void timed_csv_row(struct timed *e, FILE *f);

#endif /* FTLSIM_TIMED_H */
