// SPDX-License-Identifier: GPL-2.0
/*
 * ftlsim - drive the portable FTL core (../../ftl/ftl.c) with synthetic
 * workloads in user space and report write amplification, GC and wear
 * statistics. The core runs metadata-only (no struct ftl_ops), so a
 * simulation of a large device costs a few bytes per page and runs at
 * millions of page writes per second. With --timing, the core's
 * relocations and erases go to the NAND timing model instead (timed.c).
 *
 * See README.md for the flags and the validation tests.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../ftl/ftl.h"	/* by path: tests/vm/tools/ftlsim.c */
#include "replay.h"
#include "timed.h"
#include "tracefile.h"

typedef unsigned long long ULL;	/* for printf %llu */

enum workload { WL_UNIFORM, WL_SEQUENTIAL, WL_HOTCOLD };

struct opts {
	u64 logical_pages;	/* 0: derive from size */
	u64 size_bytes;		/* 0: unset */
	u32 page_size;
	u32 pages_per_block;
	u32 op_percent;
	u32 shards;
	int policy;
	u32 wl_threshold;
	u32 gc_low, gc_high;
	u32 program_fail_ppm, erase_fail_ppm, endurance;
	u64 fault_seed;
	enum workload workload;
	double hot_pct, access_pct;
	double trim_fraction;
	bool fill;
	double writes;		/* multiple of logical capacity */
	double warmup;		/* multiple of logical capacity, not counted */
	u64 seed;
	bool json;
	const char *csv;
	u64 csv_interval;
	bool check;
	const char *trace;	/* --trace FILE, "-" for stdin */
	int trace_format;	/* enum trace_format, -1 unset */
	char trace_event;	/* blkparse event letter */
	bool trace_dump;
	bool workload_given;	/* a synthetic-workload flag was given */
	bool timing;		/* --timing */
	const char *timing_flag;	/* a timing flag given, for the error */
	struct timed_params tp;
};

/* ---- PRNG: xoshiro256** seeded with splitmix64 ------------------------ */

struct rng {
	u64 s[4];
};

static u64 splitmix64(u64 *x)
{
	u64 z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void rng_seed(struct rng *r, u64 seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static inline u64 rotl(u64 x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline u64 rng_next(struct rng *r)
{
	u64 *s = r->s;
	u64 result = rotl(s[1] * 5, 7) * 9;
	u64 t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

/* Uniform in [0, n) by multiply-shift (Lemire); bias < n / 2^64. */
static inline u64 rng_below(struct rng *r, u64 n)
{
	return (u64)(((unsigned __int128)rng_next(r) * n) >> 64);
}

/*
 * Round a non-negative count to the nearest integer, halves up (as
 * llround); no libm, so that tests/vm/tools/ftlsim.c links without -lm.
 */
static u64 round_u64(double x)
{
	return x > 0 ? (u64)(x + 0.5) : 0;
}

/* Probability p in [0, 1] as a threshold on a 64-bit draw. */
static u64 prob_threshold(double p)
{
	if (p <= 0)
		return 0;
	if (p >= 1)
		return U64_MAX;
	return (u64)(p * 18446744073709551616.0);	/* p * 2^64, exact */
}

/* ---- the set of valid (mapped) logical pages, for trims --------------- */

#define NOT_IN_SET U32_MAX

struct valid_set {
	u32 *list;	/* dense array of valid lpns */
	u32 *pos;	/* pos[lpn]: index in list, or NOT_IN_SET */
	u64 n;
};

static inline void vset_add(struct valid_set *v, u32 lpn)
{
	if (v->pos[lpn] == NOT_IN_SET) {
		v->pos[lpn] = (u32)v->n;
		v->list[v->n++] = lpn;
	}
}

static inline void vset_remove_at(struct valid_set *v, u64 idx)
{
	u32 lpn = v->list[idx];
	u32 last = v->list[--v->n];

	v->list[idx] = last;
	v->pos[last] = (u32)idx;
	v->pos[lpn] = NOT_IN_SET;
}

/* ---- command line ------------------------------------------------------ */

static const char *prog = "ftlsim";

static void usage(FILE *f)
{
	fprintf(f,
"usage: %s [options]\n"
"Simulate the ftlblk FTL core (metadata only) under a synthetic workload.\n"
"\n"
"Geometry:\n"
"  --logical-pages N     host-visible pages (K/M/G suffixes = 2^10/20/30)\n"
"  --size BYTES          host-visible capacity instead (K/M/G suffixes);\n"
"                        default 1G\n"
"  --page-size N         flash page size in bytes (default %u)\n"
"  --pages-per-block N   pages per erase block (default %u)\n"
"  --op-percent P        over-provisioning, 1..100 (default %u)\n"
"Policy:\n"
"  --policy NAME         greedy | fifo | cost-benefit (default greedy)\n"
"  --wl-threshold N      static wear-leveling threshold, 0 = off (default %u)\n"
"  --gc-low N            GC starts below N free blocks (default: core's)\n"
"  --gc-high N           and stops at N free blocks (default: core's)\n"
"Flash faults (the run stops early if the device wears out):\n"
"  --program-fail-ppm N  page programs that fail, per million (default 0)\n"
"  --erase-fail-ppm N    block erases that fail, per million (default 0)\n"
"  --endurance N         erases a block survives, 0 = unlimited (default 0)\n"
"  --fault-seed S        seed of the fault generator (default 1)\n"
"NAND timing (README.md, Timing model; only with --timing):\n"
"  --timing              time every request on a model of dies and\n"
"                        channels, closed loop at --queue-depth\n"
"  --channels N          1..64 (default %u)\n"
"  --dies-per-channel N  1..64 (default %u)\n"
"  --read-us N           tR, page read, 1..1000000 (default %u)\n"
"  --program-us N        tPROG, page program, 1..1000000 (default %u)\n"
"  --erase-us N          tBERS, block erase, 1..1000000 (default %u)\n"
"  --channel-mbps N      channel bandwidth, MB/s, 1..100000 (default %u)\n"
"  --queue-depth N       outstanding host requests, 1..%u (default %u)\n"
"  --request-pages N     pages per request, 1..%u (default 1)\n"
"  --read-fraction R     fraction of requests, in [0,1), that read\n"
"                        uniformly chosen pages (default 0)\n"
"Workload:\n"
"  --workload W          uniform | sequential | hotcold[:HOT%%:ACCESS%%]\n"
"                        (hotcold default 10:90: 90%% of the writes go to\n"
"                        10%% of the pages); default uniform\n"
"  --trim-fraction Q     fraction of requests, in [0,1), that discard a\n"
"                        uniformly chosen valid page instead of writing\n"
"  --fill                first write every logical page once, sequentially\n"
"                        (not counted: statistics are reset afterwards)\n"
"  --warmup X            then X * logical pages of workload writes, also\n"
"                        not counted (default 0)\n"
"  --writes X            measured host page writes, X * logical pages\n"
"                        (float, default 1)\n"
"  --seed S              PRNG seed (default 1); same seed, same run\n"
"Trace replay (instead of a synthetic workload; README.md, Trace replay):\n"
"  --trace FILE          replay a block trace (- for stdin), request by\n"
"                        request, mapped to flash pages as ftlblk does\n"
"  --trace-format F      blkparse | iolog | msr (required with --trace)\n"
"  --blkparse-event E    blkparse event that is a request: D (dispatch,\n"
"                        default), C (completion) or Q (queued bio)\n"
"  --trace-dump          print each parsed request (LINE OP SECTOR COUNT)\n"
"                        instead of replaying\n"
"Output:\n"
"  --json                one JSON object on stdout\n"
"  --csv FILE            time series: host_writes, waf_so_far, free_blocks,\n"
"                        valid_pages, erase_spread (--timing adds\n"
"                        modeled_ns, host_mbps)\n"
"  --csv-interval N      host writes between samples (default: 1/100 run)\n"
"  --check               run ftl_check() at every sample and at the end\n"
"  --help                this text\n",
		prog, FTL_DEFAULT_PAGE_SIZE, FTL_DEFAULT_PAGES_PER_BLOCK,
		FTL_DEFAULT_OP_PERCENT, FTL_DEFAULT_WL_THRESHOLD,
		FTL_TIMING_DEFAULT_CHANNELS,
		FTL_TIMING_DEFAULT_DIES_PER_CHANNEL,
		FTL_TIMING_DEFAULT_READ_US, FTL_TIMING_DEFAULT_PROGRAM_US,
		FTL_TIMING_DEFAULT_ERASE_US, FTL_TIMING_DEFAULT_CHANNEL_MBPS,
		TIMED_MAX_QUEUE_DEPTH, TIMED_DEFAULT_QUEUE_DEPTH,
		TIMED_MAX_REQUEST_PAGES);
}

static void bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nusage: %s [options]; %s --help lists them\n",
		prog, prog);
	exit(2);
}

/* An unsigned integer with an optional K/M/G/T suffix (powers of 1024). */
static u64 parse_size(const char *opt, const char *s)
{
	char *end;
	unsigned long long v;
	u64 mult = 1;

	if (!*s || *s == '-')
		bad("bad number for %s", opt);
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		bad("bad number for %s", opt);
	switch (*end) {
	case 'k': case 'K': mult = 1ULL << 10; end++; break;
	case 'm': case 'M': mult = 1ULL << 20; end++; break;
	case 'g': case 'G': mult = 1ULL << 30; end++; break;
	case 't': case 'T': mult = 1ULL << 40; end++; break;
	}
	if (*end == 'i' && mult > 1)	/* accept KiB-style "Ki", "Mi" */
		end++;
	if (*end == 'B' && mult > 1)
		end++;
	if (*end)
		bad("bad number for %s", opt);
	if (v && mult > U64_MAX / v)
		bad("number too large for %s", opt);
	return v * mult;
}

static u32 parse_u32(const char *opt, const char *s)
{
	u64 v = parse_size(opt, s);

	if (v > U32_MAX)
		bad("number too large for %s", opt);
	return (u32)v;
}

/* An integer in [1, @max]; the message names the flag and the range. */
static u32 parse_range(const char *opt, const char *s, u32 max)
{
	u64 v = parse_size(opt, s);

	if (v < 1 || v > max) {
		char msg[100];

		snprintf(msg, sizeof(msg), "%s must be in 1..%u", opt, max);
		bad("%s", msg);
	}
	return (u32)v;
}

static double parse_double(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v))
		bad("bad number for %s", opt);
	return v;
}

static void parse_workload(struct opts *o, const char *s)
{
	if (!strcmp(s, "uniform")) {
		o->workload = WL_UNIFORM;
	} else if (!strcmp(s, "sequential")) {
		o->workload = WL_SEQUENTIAL;
	} else if (!strncmp(s, "hotcold", 7) && (!s[7] || s[7] == ':')) {
		o->workload = WL_HOTCOLD;
		o->hot_pct = 10;
		o->access_pct = 90;
		if (s[7] == ':') {
			char *end;

			o->hot_pct = strtod(s + 8, &end);
			if (end == s + 8 || *end != ':')
				bad("bad hotcold spec '%s' (hotcold:HOT%%:ACCESS%%)", s);
			s = end + 1;
			o->access_pct = strtod(s, &end);
			if (end == s || *end)
				bad("bad hotcold spec '%s' (hotcold:HOT%%:ACCESS%%)", s);
		}
		if (!(o->hot_pct > 0 && o->hot_pct <= 100) ||
		    !(o->access_pct >= 0 && o->access_pct <= 100))
			bad("hotcold percentages out of range in '%s'", s);
	} else {
		bad("unknown workload '%s'", s);
	}
}

enum {
	O_LOGICAL = 256, O_SIZE, O_PAGE_SIZE, O_PPB, O_OP, O_POLICY, O_WL,
	O_GC_LOW, O_GC_HIGH, O_WORKLOAD, O_TRIM, O_FILL, O_WRITES, O_WARMUP,
	O_SEED, O_JSON, O_CSV, O_CSV_INTERVAL, O_CHECK, O_HELP,
	O_TRACE, O_TRACE_FORMAT, O_TRACE_EVENT, O_TRACE_DUMP,
	O_PROGRAM_FAIL, O_ERASE_FAIL, O_ENDURANCE, O_FAULT_SEED,
	O_TIMING, O_CHANNELS, O_DIES, O_READ_US, O_PROGRAM_US, O_ERASE_US,
	O_CHANNEL_MBPS, O_QUEUE_DEPTH, O_REQUEST_PAGES, O_READ_FRACTION,
	O_SHARDS,
};

static const struct option longopts[] = {
	{ "logical-pages",	required_argument, NULL, O_LOGICAL },
	{ "size",		required_argument, NULL, O_SIZE },
	{ "page-size",		required_argument, NULL, O_PAGE_SIZE },
	{ "pages-per-block",	required_argument, NULL, O_PPB },
	{ "op-percent",		required_argument, NULL, O_OP },
	{ "shards",		required_argument, NULL, O_SHARDS },
	{ "policy",		required_argument, NULL, O_POLICY },
	{ "wl-threshold",	required_argument, NULL, O_WL },
	{ "gc-low",		required_argument, NULL, O_GC_LOW },
	{ "gc-high",		required_argument, NULL, O_GC_HIGH },
	{ "workload",		required_argument, NULL, O_WORKLOAD },
	{ "trim-fraction",	required_argument, NULL, O_TRIM },
	{ "fill",		no_argument,	   NULL, O_FILL },
	{ "writes",		required_argument, NULL, O_WRITES },
	{ "warmup",		required_argument, NULL, O_WARMUP },
	{ "seed",		required_argument, NULL, O_SEED },
	{ "json",		no_argument,	   NULL, O_JSON },
	{ "csv",		required_argument, NULL, O_CSV },
	{ "csv-interval",	required_argument, NULL, O_CSV_INTERVAL },
	{ "check",		no_argument,	   NULL, O_CHECK },
	{ "help",		no_argument,	   NULL, O_HELP },
	{ "trace",		required_argument, NULL, O_TRACE },
	{ "trace-format",	required_argument, NULL, O_TRACE_FORMAT },
	{ "blkparse-event",	required_argument, NULL, O_TRACE_EVENT },
	{ "trace-dump",		no_argument,	   NULL, O_TRACE_DUMP },
	{ "program-fail-ppm",	required_argument, NULL, O_PROGRAM_FAIL },
	{ "erase-fail-ppm",	required_argument, NULL, O_ERASE_FAIL },
	{ "endurance",		required_argument, NULL, O_ENDURANCE },
	{ "fault-seed",		required_argument, NULL, O_FAULT_SEED },
	{ "timing",		no_argument,	   NULL, O_TIMING },
	{ "channels",		required_argument, NULL, O_CHANNELS },
	{ "dies-per-channel",	required_argument, NULL, O_DIES },
	{ "read-us",		required_argument, NULL, O_READ_US },
	{ "program-us",		required_argument, NULL, O_PROGRAM_US },
	{ "erase-us",		required_argument, NULL, O_ERASE_US },
	{ "channel-mbps",	required_argument, NULL, O_CHANNEL_MBPS },
	{ "queue-depth",	required_argument, NULL, O_QUEUE_DEPTH },
	{ "request-pages",	required_argument, NULL, O_REQUEST_PAGES },
	{ "read-fraction",	required_argument, NULL, O_READ_FRACTION },
	{ NULL, 0, NULL, 0 },
};

/*
 * The timing flags other than --timing itself; @flag is the option's
 * static name, kept for the error if --timing is missing.
 */
static void parse_timing_flag(struct opts *o, int c, const char *flag,
			      const char *name, const char *arg)
{
	struct timed_params *p = &o->tp;

	if (!o->timing_flag)
		o->timing_flag = flag;
	switch (c) {
	case O_CHANNELS:
		p->cfg.channels = parse_range(name, arg, FTL_TIMING_MAX_CHANNELS);
		break;
	case O_DIES:
		p->cfg.dies_per_channel =
			parse_range(name, arg, FTL_TIMING_MAX_DIES_PER_CHANNEL);
		break;
	case O_READ_US:
		p->cfg.read_us = parse_range(name, arg, FTL_TIMING_MAX_US);
		break;
	case O_PROGRAM_US:
		p->cfg.program_us = parse_range(name, arg, FTL_TIMING_MAX_US);
		break;
	case O_ERASE_US:
		p->cfg.erase_us = parse_range(name, arg, FTL_TIMING_MAX_US);
		break;
	case O_CHANNEL_MBPS:
		p->cfg.channel_mbps = parse_range(name, arg, FTL_TIMING_MAX_MBPS);
		break;
	case O_QUEUE_DEPTH:
		p->queue_depth = parse_range(name, arg, TIMED_MAX_QUEUE_DEPTH);
		break;
	case O_REQUEST_PAGES:
		p->request_pages = parse_range(name, arg, TIMED_MAX_REQUEST_PAGES);
		break;
	case O_READ_FRACTION:
		p->read_fraction = parse_double(name, arg);
		if (p->read_fraction < 0 || p->read_fraction >= 1)
			bad("%s must be in [0, 1)", name);
		break;
	}
}

static void parse_args(struct opts *o, int argc, char **argv)
{
	int c, li;
	char name[64];

	memset(o, 0, sizeof(*o));
	o->page_size = FTL_DEFAULT_PAGE_SIZE;
	o->pages_per_block = FTL_DEFAULT_PAGES_PER_BLOCK;
	o->shards = 1;
	o->op_percent = FTL_DEFAULT_OP_PERCENT;
	o->policy = FTL_GC_GREEDY;
	o->wl_threshold = FTL_DEFAULT_WL_THRESHOLD;
	o->workload = WL_UNIFORM;
	o->writes = 1;
	o->seed = 1;
	o->fault_seed = FTL_DEFAULT_FAULT_SEED;
	o->trace_format = -1;
	o->trace_event = 'D';
	timed_params_init(&o->tp);

	opterr = 0;
	for (;;) {
		li = -1;
		c = getopt_long(argc, argv, ":h", longopts, &li);
		if (c == -1)
			break;
		snprintf(name, sizeof(name), "--%s",
			 li >= 0 ? longopts[li].name : "?");
		switch (c) {
		case O_LOGICAL:
			o->logical_pages = parse_size(name, optarg);
			if (!o->logical_pages)
				bad("%s must be positive", name);
			break;
		case O_SIZE:
			o->size_bytes = parse_size(name, optarg);
			if (!o->size_bytes)
				bad("%s must be positive", name);
			break;
		case O_PAGE_SIZE:
			o->page_size = parse_u32(name, optarg);
			break;
		case O_PPB:
			o->pages_per_block = parse_u32(name, optarg);
			break;
		case O_OP:
			o->op_percent = parse_u32(name, optarg);
			break;
		case O_SHARDS:
			o->shards = parse_u32(name, optarg);
			if (o->shards < 1 || o->shards > FTL_MAX_SHARDS)
				bad("%s must be 1..64", name);
			break;
		case O_POLICY:
			o->policy = ftl_policy_parse(optarg);
			if (o->policy < 0)
				bad("unknown policy '%s' (greedy, fifo, cost-benefit)",
				    optarg);
			break;
		case O_WL:
			o->wl_threshold = parse_u32(name, optarg);
			break;
		case O_GC_LOW:
			o->gc_low = parse_u32(name, optarg);
			break;
		case O_GC_HIGH:
			o->gc_high = parse_u32(name, optarg);
			break;
		case O_PROGRAM_FAIL:
			o->program_fail_ppm = parse_u32(name, optarg);
			break;
		case O_ERASE_FAIL:
			o->erase_fail_ppm = parse_u32(name, optarg);
			break;
		case O_ENDURANCE:
			o->endurance = parse_u32(name, optarg);
			break;
		case O_FAULT_SEED:
			o->fault_seed = parse_size(name, optarg);
			break;
		case O_WORKLOAD:
			o->workload_given = true;
			parse_workload(o, optarg);
			break;
		case O_TRIM:
			o->workload_given = true;
			o->trim_fraction = parse_double(name, optarg);
			if (o->trim_fraction < 0 || o->trim_fraction >= 1)
				bad("%s must be in [0, 1)", name);
			break;
		case O_FILL:
			o->fill = true;
			break;
		case O_WRITES:
			o->workload_given = true;
			o->writes = parse_double(name, optarg);
			if (o->writes < 0)
				bad("%s must not be negative", name);
			break;
		case O_WARMUP:
			o->workload_given = true;
			o->warmup = parse_double(name, optarg);
			if (o->warmup < 0)
				bad("%s must not be negative", name);
			break;
		case O_SEED:
			o->seed = parse_size(name, optarg);
			break;
		case O_JSON:
			o->json = true;
			break;
		case O_CSV:
			o->csv = optarg;
			break;
		case O_CSV_INTERVAL:
			o->csv_interval = parse_size(name, optarg);
			if (!o->csv_interval)
				bad("%s must be positive", name);
			break;
		case O_CHECK:
			o->check = true;
			break;
		case O_TRACE:
			o->trace = optarg;
			break;
		case O_TRACE_FORMAT:
			o->trace_format = trace_format_parse(optarg);
			if (o->trace_format < 0)
				bad("unknown trace format '%s' (blkparse, iolog, msr)",
				    optarg);
			break;
		case O_TRACE_EVENT:
			if (strcmp(optarg, "D") && strcmp(optarg, "C") &&
			    strcmp(optarg, "Q"))
				bad("--blkparse-event must be D, C or Q, not '%s'",
				    optarg);
			o->trace_event = optarg[0];
			break;
		case O_TRACE_DUMP:
			o->trace_dump = true;
			break;
		case O_TIMING:
			o->timing = true;
			break;
		case O_CHANNELS: case O_DIES: case O_READ_US: case O_PROGRAM_US:
		case O_ERASE_US: case O_CHANNEL_MBPS: case O_QUEUE_DEPTH:
		case O_REQUEST_PAGES: case O_READ_FRACTION:
			parse_timing_flag(o, c, longopts[li].name, name, optarg);
			break;
		case 'h':
		case O_HELP:
			usage(stdout);
			exit(0);
		case ':':
			bad("option %s needs an argument", argv[optind - 1]);
			break;
		default:
			bad("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		bad("unexpected argument '%s'", argv[optind]);
	if (o->trace && o->trace_format < 0)
		bad("%s", "--trace needs --trace-format blkparse|iolog|msr");
	if (!o->trace && (o->trace_format >= 0 || o->trace_dump))
		bad("%s", "--trace-format and --trace-dump need --trace FILE");
	if (o->trace && o->workload_given)
		bad("%s", "--trace replaces --workload, --trim-fraction, --writes "
		    "and --warmup");
	if (o->logical_pages && o->size_bytes)
		bad("%s", "give --logical-pages or --size, not both");
	if (o->timing_flag && !o->timing)
		bad("--%s needs --timing", o->timing_flag);
	if (o->timing && o->shards > 1)
		bad("%s", "--timing models one FTL: it takes no --shards");
	if (o->timing && o->trace)
		bad("%s", "--timing does not replay traces (--trace): it times "
		    "synthetic workloads only");
	if (!o->logical_pages) {
		u64 size = o->size_bytes ? o->size_bytes : 1ULL << 30;

		if (!o->page_size || size % o->page_size)
			bad("%s", "--size must be a multiple of --page-size");
		o->logical_pages = size / o->page_size;
	}
}

/* ---- simulation ------------------------------------------------------- */

struct sim {
	struct opts *o;
	struct simdev *ftl;
	struct ftl_geometry geo;
	struct rng rng;
	struct valid_set vset;
	bool track;		/* maintain vset (trims enabled) */
	u64 trim_thresh;
	u64 hot_thresh;
	u64 hot_n;
	u64 seq_next;
	/* counted by the simulator, per measured phase */
	u64 trims;
	u64 trims_skipped;	/* trim drawn while nothing was valid */
	bool worn_out;		/* the FTL turned read-only: the run stopped */
	/* free-block samples taken at every sampling point */
	double free_sum;
	u64 free_samples;
	/* trace replay */
	struct replay rp;
	struct trace_parser tp;
	/* --timing: the engine, NULL without; the fill's next page */
	struct timed *timed;
	u64 read_thresh;
	bool filling;
	u64 fill_next;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void die_write(int err, u64 lpn)
{
	fprintf(stderr, "%s: ftl_write(lpn %llu) failed: %s\n",
		prog, (ULL)lpn, strerror(-err));
	exit(1);
}

/*
 * Write @lpn; *@ppn receives the page programmed.
 * Return: false once the device has worn out (the write was refused).
 */
static inline bool sim_write_at(struct sim *s, u64 lpn, u32 *ppn)
{
	int err = simdev_write(s->ftl, lpn, ppn);

	if (__builtin_expect(err, 0)) {
		if (err != -EROFS || simdev_read_only(s->ftl) != FTL_READ_ONLY_WORN_OUT)
			die_write(err, lpn);
		s->worn_out = true;
		return false;
	}
	if (s->track)
		vset_add(&s->vset, (u32)lpn);
	return true;
}

static inline bool sim_write(struct sim *s, u64 lpn)
{
	u32 ppn;

	return sim_write_at(s, lpn, &ppn);
}

static inline u64 next_lpn(struct sim *s)
{
	u64 n = s->geo.logical_pages;
	u64 lpn;

	switch (s->o->workload) {
	case WL_SEQUENTIAL:
		lpn = s->seq_next;
		if (++s->seq_next == n)
			s->seq_next = 0;
		return lpn;
	case WL_HOTCOLD:
		if (rng_next(&s->rng) < s->hot_thresh || s->hot_n == n)
			return rng_below(&s->rng, s->hot_n);
		return s->hot_n + rng_below(&s->rng, n - s->hot_n);
	case WL_UNIFORM:
	default:
		return rng_below(&s->rng, n);
	}
}

/* Discard one uniformly chosen valid page, if any. */
static void trim_one(struct sim *s)
{
	u64 idx;
	u32 lpn;

	if (!s->vset.n) {
		s->trims_skipped++;
		return;
	}
	idx = rng_below(&s->rng, s->vset.n);
	lpn = s->vset.list[idx];
	if (simdev_discard(s->ftl, lpn, 1, false) != 1) {
		fprintf(stderr, "%s: discard of valid lpn %u did not unmap it\n",
			prog, lpn);
		exit(1);
	}
	vset_remove_at(&s->vset, idx);
	s->trims++;
}

/*
 * --timing's request source (struct timed_source): the fill's next
 * request_pages pages, or a workload request: trims first (instant, as in
 * run_writes()), then a read with probability read_fraction, else a
 * write. A sequential write request of N pages moves the workload on N.
 */
static bool timed_next_request(void *ctx, u64 *lpn)
{
	struct sim *s = ctx;
	u64 n = s->geo.logical_pages, pages = s->o->tp.request_pages;

	if (s->filling) {
		*lpn = s->fill_next;
		s->fill_next += pages;
		return false;
	}
	while (s->track && rng_next(&s->rng) < s->trim_thresh)
		trim_one(s);
	if (s->read_thresh && rng_next(&s->rng) < s->read_thresh) {
		*lpn = rng_below(&s->rng, n);
		return true;
	}
	if (s->o->workload != WL_SEQUENTIAL) {
		*lpn = next_lpn(s);
		return false;
	}
	*lpn = s->seq_next;
	s->seq_next = (s->seq_next + pages) % n;
	return false;
}

static bool timed_write_page(void *ctx, u64 lpn, u32 *ppn)
{
	return sim_write_at(ctx, lpn, ppn);
}

static void run_timed(struct sim *s, u64 count)
{
	const struct timed_source src = {
		.ctx = s,
		.next = timed_next_request,
		.write = timed_write_page,
	};

	timed_run(s->timed, &src, count);
}

/*
 * Issue requests until @count host page writes have been made. A request
 * is a trim with probability trim_fraction (when any page is valid), else
 * a write from the workload; trims do not count towards @count.
 */
static void run_writes(struct sim *s, u64 count)
{
	u64 i;

	if (s->timed) {
		run_timed(s, count);
		return;
	}
	if (!s->track) {
		for (i = 0; i < count; i++)
			if (!sim_write(s, next_lpn(s)))
				return;
		return;
	}
	for (i = 0; i < count; ) {
		if (rng_next(&s->rng) < s->trim_thresh) {
			trim_one(s);
			continue;
		}
		if (!sim_write(s, next_lpn(s)))
			return;
		i++;
	}
}

/* --fill: every logical page once, in order (timed: request by request). */
static void run_fill(struct sim *s)
{
	if (s->timed) {
		s->filling = true;
		s->fill_next = 0;
		run_timed(s, s->geo.logical_pages);
		s->filling = false;
		return;
	}
	for (u64 lpn = 0; lpn < s->geo.logical_pages && !s->worn_out; lpn++)
		sim_write(s, lpn);
}

static void check_or_die(struct sim *s, const char *when)
{
	if (simdev_check(s->ftl)) {
		fprintf(stderr, "%s: ftl_check() failed %s\n", prog, when);
		exit(1);
	}
}

static double waf_of(const struct ftl_stats *st)
{
	return st->host_pages_written ?
		(double)st->nand_pages_written / st->host_pages_written : 0;
}

static void sample(struct sim *s, FILE *csv)
{
	struct ftl_stats st;

	simdev_get_stats(s->ftl, &st);
	s->free_sum += st.free_blocks;
	s->free_samples++;
	if (csv) {
		fprintf(csv, "%llu,%.6f,%llu,%llu,%llu",
			(ULL)st.host_pages_written, waf_of(&st),
			(ULL)st.free_blocks, (ULL)st.valid_pages,
			(ULL)(st.erase_max - st.erase_min));
		if (s->timed)
			timed_csv_row(s->timed, csv);
		fputc('\n', csv);
	}
	if (s->o->check)
		check_or_die(s, "during the run");
}

/* ---- trace replay ------------------------------------------------------ */

static FILE *open_trace(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;

	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		exit(1);
	}
	return f;
}

static void trace_fail(const struct sim *s, const char *why)
{
	fprintf(stderr, "%s: %s:%llu: %s\n", prog,
		strcmp(s->o->trace, "-") ? s->o->trace : "<stdin>",
		(ULL)s->tp.line, why);
	exit(1);
}

/*
 * Feed @f to the parser; each request goes to @fn. A parse error, or an
 * error from @fn, ends the program with the line number.
 */
static void for_each_request(struct sim *s, FILE *f,
			     void (*fn)(struct sim *, const struct trace_req *))
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	struct trace_req req;

	trace_parser_init(&s->tp, (enum trace_format)s->o->trace_format,
			  s->o->trace_event);
	while ((n = getline(&line, &cap, f)) >= 0) {
		int ret;

		if (n && line[n - 1] == '\n')
			n--;
		ret = trace_parse_line(&s->tp, line, (size_t)n, &req);
		if (ret < 0)
			trace_fail(s, s->tp.err);
		if (ret > 0)
			fn(s, &req);
	}
	if (ferror(f)) {
		fprintf(stderr, "%s: %s: read error\n", prog, s->o->trace);
		exit(1);
	}
	free(line);
	if (s->o->trace_format == TRACE_IOLOG && !s->tp.iolog_version)
		trace_fail(s, "empty trace: no 'fio version 2|3 iolog' header");
}

static void dump_one(struct sim *s, const struct trace_req *req)
{
	printf("%llu %s %llu %llu\n", (ULL)s->tp.line, trace_op_name(req->op),
	       (ULL)req->sector, (ULL)req->nr_sects);
}

static FILE *trace_csv;
static u64 trace_next_sample, trace_interval;

static void replay_one(struct sim *s, const struct trace_req *req)
{
	const char *why = NULL;
	int err = replay_req(&s->rp, req, &why);

	if (err) {
		char msg[200];

		snprintf(msg, sizeof(msg), "%s %llu + %llu: %s",
			 trace_op_name(req->op), (ULL)req->sector,
			 (ULL)req->nr_sects, why ? why : strerror(-err));
		trace_fail(s, msg);
	}
	if (s->rp.write_requests + s->rp.discard_requests +
	    s->rp.read_requests >= trace_next_sample) {
		sample(s, trace_csv);
		trace_next_sample += trace_interval;
	}
}

static const char *workload_name(const struct opts *o, char *buf, size_t len)
{
	switch (o->workload) {
	case WL_SEQUENTIAL:
		return o->trace ? "trace" : "sequential";
	case WL_HOTCOLD:
		snprintf(buf, len, "hotcold:%g:%g", o->hot_pct, o->access_pct);
		return buf;
	default:
		return o->trace ? "trace" : "uniform";
	}
}

static double exact_erase_mean(struct sim *s)
{
	double sum = 0;

	for (u32 b = 0; b < s->geo.physical_blocks; b++)
		sum += simdev_block_erase_count(s->ftl, b);
	return sum / s->geo.physical_blocks;
}

#define JU(name, v)	printf("  \"%s\": %llu,\n", name, (ULL)(v))
#define JF(name, v)	printf("  \"%s\": %.6f,\n", name, (double)(v))

static void print_json(struct sim *s, const struct ftl_stats *st,
		       double elapsed, u64 measured)
{
	struct opts *o = s->o;
	char wbuf[64];
	double rate = elapsed > 0 ? measured / elapsed : 0;

	printf("{\n");
	if (o->trace) {
		const struct replay *r = &s->rp;

		printf("  \"trace_format\": \"%s\",\n",
		       trace_format_name((enum trace_format)o->trace_format));
		JU("trace_lines", s->tp.line);
		JU("trace_lines_skipped", s->tp.skipped);
		JU("trace_requests", r->read_requests + r->write_requests +
		   r->discard_requests);
		JU("read_requests", r->read_requests);
		JU("write_requests", r->write_requests);
		JU("discard_requests", r->discard_requests);
		JU("read_sectors", r->read_sectors);
		JU("write_sectors", r->write_sectors);
		JU("discard_sectors", r->discard_sectors);
		JU("sectors_zeroed", r->sectors_zeroed);
		JU("rmw_pages", r->rmw_pages);
	}
	/* every field of struct ftl_stats */
	JU("host_pages_written", st->host_pages_written);
	JU("host_pages_read", st->host_pages_read);
	JU("nand_pages_written", st->nand_pages_written);
	JU("gc_relocations", st->gc_relocations);
	JU("gc_runs", st->gc_runs);
	JU("wl_relocations", st->wl_relocations);
	JU("wl_runs", st->wl_runs);
	JU("erases", st->erases);
	JU("discard_calls", st->discard_calls);
	JU("pages_discarded", st->pages_discarded);
	JU("valid_pages_discarded", st->valid_pages_discarded);
	JU("unmapped_reads", st->unmapped_reads);
	JU("program_failures", st->program_failures);
	JU("erase_failures", st->erase_failures);
	JU("valid_pages", st->valid_pages);
	JU("free_blocks", st->free_blocks);
	JU("bad_blocks", st->bad_blocks);
	JU("spare_blocks_left", st->spare_blocks);
	JU("read_only", st->read_only);
	JU("erase_min", st->erase_min);
	JU("erase_max", st->erase_max);
	JU("erase_mean_milli", st->erase_mean_milli);
	JU("waf_milli", st->waf_milli);
	/* derived */
	JF("waf", waf_of(st));
	JF("erase_mean", exact_erase_mean(s));
	JU("erase_spread", st->erase_max - st->erase_min);
	JF("free_blocks_mean", s->free_samples ? s->free_sum / s->free_samples
					       : (double)st->free_blocks);
	JU("trims", s->trims);
	/* geometry */
	JU("logical_pages", s->geo.logical_pages);
	JU("page_size", o->page_size);
	JU("pages_per_block", s->geo.pages_per_block);
	JU("logical_blocks", s->geo.logical_blocks);
	JU("physical_blocks", s->geo.physical_blocks);
	JU("physical_pages", s->geo.physical_pages);
	JU("spare_blocks", s->geo.spare_blocks);
	JU("open_blocks", s->geo.open_blocks);
	JU("gc_low_blocks", s->geo.gc_low_blocks);
	JU("gc_high_blocks", s->geo.gc_high_blocks);
	JU("metadata_bytes", simdev_metadata_bytes(s->ftl));
	JU("shards", o->shards);
	/* parameters */
	printf("  \"policy\": \"%s\",\n", ftl_policy_name(o->policy));
	printf("  \"workload\": \"%s\",\n", workload_name(o, wbuf, sizeof(wbuf)));
	JU("op_percent", o->op_percent);
	JU("wl_threshold", o->wl_threshold);
	JU("program_fail_ppm", o->program_fail_ppm);
	JU("erase_fail_ppm", o->erase_fail_ppm);
	JU("endurance", o->endurance);
	JU("fault_seed", o->fault_seed);
	JF("trim_fraction", o->trim_fraction);
	printf("  \"fill\": %s,\n", o->fill ? "true" : "false");
	JF("warmup", o->warmup);
	JF("writes", o->writes);
	JU("seed", o->seed);
	if (s->timed)
		timed_json(s->timed, stdout);
	/* timing */
	JF("elapsed_seconds", elapsed);
	printf("  \"host_writes_per_second\": %.0f\n", rate);
	printf("}\n");
}

static void print_human(struct sim *s, const struct ftl_stats *st,
			double elapsed, u64 measured)
{
	struct opts *o = s->o;
	char wbuf[64];

	printf("device:    %llu logical pages (%.1f MiB), %u pages/block, "
	       "%u%% OP\n", (ULL)s->geo.logical_pages,
	       s->geo.logical_pages * (double)o->page_size / (1 << 20),
	       s->geo.pages_per_block, o->op_percent);
	printf("blocks:    %u physical = %u logical + %u spare; %u open, "
	       "GC low/high %u/%u%s\n", s->geo.physical_blocks,
	       s->geo.logical_blocks, s->geo.spare_blocks, s->geo.open_blocks,
	       s->geo.gc_low_blocks, s->geo.gc_high_blocks,
	       o->shards > 1 ? " per shard" : "");
	if (o->shards > 1)
		printf("shards:    %u, dealt %u-page stripes\n", o->shards,
		       s->geo.pages_per_block);
	if (o->trace)
		printf("run:       policy %s, wl-threshold %u, trace replay%s\n",
		       ftl_policy_name(o->policy), o->wl_threshold,
		       o->fill ? ", filled first" : "");
	else
		printf("run:       policy %s, workload %s, wl-threshold %u, "
		       "trim %.3g, seed %llu%s\n", ftl_policy_name(o->policy),
		       workload_name(o, wbuf, sizeof(wbuf)), o->wl_threshold,
		       o->trim_fraction, (ULL)o->seed,
		       o->fill ? ", filled first" : "");
	if (o->trace) {
		const struct replay *r = &s->rp;

		printf("trace:     %s, %s format, %llu lines (%llu without a "
		       "request)\n", o->trace,
		       trace_format_name((enum trace_format)o->trace_format),
		       (ULL)s->tp.line, (ULL)s->tp.skipped);
		printf("requests:  %llu reads (%llu sectors), %llu writes (%llu "
		       "sectors), %llu discards (%llu sectors)\n",
		       (ULL)r->read_requests, (ULL)r->read_sectors,
		       (ULL)r->write_requests, (ULL)r->write_sectors,
		       (ULL)r->discard_requests, (ULL)r->discard_sectors);
		printf("pages:     %llu read (%llu unmapped), %llu partial-page "
		       "programs, %llu discarded (%llu held data), %llu sectors "
		       "zeroed\n", (ULL)st->host_pages_read,
		       (ULL)st->unmapped_reads, (ULL)r->rmw_pages,
		       (ULL)st->pages_discarded,
		       (ULL)st->valid_pages_discarded,
		       (ULL)r->sectors_zeroed);
	}
	printf("writes:    host %llu, NAND %llu, WAF %.4f\n",
	       (ULL)st->host_pages_written, (ULL)st->nand_pages_written,
	       waf_of(st));
	printf("GC:        %llu runs, %llu relocations; WL: %llu runs, "
	       "%llu relocations\n", (ULL)st->gc_runs,
	       (ULL)st->gc_relocations, (ULL)st->wl_runs,
	       (ULL)st->wl_relocations);
	if (!o->trace)
		printf("trims:     %llu (%llu valid pages discarded)\n",
		       (ULL)s->trims, (ULL)st->valid_pages_discarded);
	printf("state:     %llu valid pages, %llu free blocks\n",
	       (ULL)st->valid_pages, (ULL)st->free_blocks);
	if (o->program_fail_ppm || o->erase_fail_ppm || o->endurance)
		printf("faults:    %llu program and %llu erase failures, %llu bad "
		       "blocks, %llu spare blocks left%s\n",
		       (ULL)st->program_failures, (ULL)st->erase_failures,
		       (ULL)st->bad_blocks, (ULL)st->spare_blocks,
		       st->read_only ? "; WORN OUT: read-only, the run stopped" :
		       "");
	printf("erases:    %llu, per block min %llu max %llu"
	       " mean %.2f (spread %llu)\n", (ULL)st->erases,
	       (ULL)st->erase_min, (ULL)st->erase_max, exact_erase_mean(s),
	       (ULL)(st->erase_max - st->erase_min));
	if (s->timed)
		timed_human(s->timed, stdout);
	printf("speed:     %.3f s, %.0f host page writes/s\n", elapsed,
	       elapsed > 0 ? measured / elapsed : 0);
}

/*
 * --timing: the engine, on the FTL's page size and block size (s->geo
 * from ftl_config_check()). Return: 0, or 1 with a message printed.
 */
static int setup_timing(struct sim *s, struct timed *eng)
{
	const char *why = NULL;
	int err = timed_init(eng, &s->o->tp, s->o->page_size,
			     s->geo.pages_per_block, &why);

	if (err) {
		fprintf(stderr, "%s: timing model: %s\n", prog,
			why ? why : strerror(-err));
		return 1;
	}
	s->timed = eng;
	s->read_thresh = prob_threshold(s->o->tp.read_fraction);
	return 0;
}

/* Replay --trace on the created FTL, print the results; the exit status. */
static int run_trace(struct sim *s)
{
	struct opts *o = s->o;
	struct ftl_stats st;
	FILE *f;
	double t0, elapsed;

	if (o->page_size % 512 || o->page_size / 512 > 32) {
		fprintf(stderr, "%s: --trace needs a page size of at most 16 KiB\n",
			prog);
		return 1;
	}
	if (replay_init(&s->rp, s->ftl, o->page_size, s->geo.logical_pages)) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	if (o->fill && replay_fill(&s->rp)) {
		fprintf(stderr, "%s: --fill failed\n", prog);
		return 1;
	}
	simdev_reset_stats(s->ftl);
	trace_interval = o->csv_interval ? o->csv_interval : 1000;
	trace_next_sample = trace_interval;
	if (o->csv) {
		trace_csv = fopen(o->csv, "w");
		if (!trace_csv) {
			fprintf(stderr, "%s: %s: %s\n", prog, o->csv,
				strerror(errno));
			return 1;
		}
		fprintf(trace_csv, "host_writes,waf_so_far,free_blocks,"
			"valid_pages,erase_spread\n");
	}
	f = open_trace(o->trace);
	t0 = now();
	for_each_request(s, f, replay_one);
	elapsed = now() - t0;
	if (f != stdin)
		fclose(f);
	sample(s, trace_csv);
	if (trace_csv && fclose(trace_csv)) {
		fprintf(stderr, "%s: %s: %s\n", prog, o->csv, strerror(errno));
		return 1;
	}
	if (o->check)
		check_or_die(s, "at the end");
	simdev_get_stats(s->ftl, &st);
	if (o->json)
		print_json(s, &st, elapsed, st.host_pages_written);
	else
		print_human(s, &st, elapsed, st.host_pages_written);
	replay_destroy(&s->rp);
	simdev_destroy(s->ftl);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct sim s;
	struct ftl_config cfg;
	struct ftl_stats st;
	struct timed eng;
	const char *why = NULL;
	FILE *csv = NULL;
	u64 total, interval, done;
	double t0, elapsed;
	int err = 0;

	if (argv[0] && *argv[0]) {
		const char *slash = strrchr(argv[0], '/');

		prog = slash ? slash + 1 : argv[0];
	}
	parse_args(&o, argc, argv);
	memset(&s, 0, sizeof(s));
	s.o = &o;
	if (o.trace_dump) {
		FILE *f = open_trace(o.trace);

		for_each_request(&s, f, dump_one);
		if (f != stdin)
			fclose(f);
		return 0;
	}

	ftl_config_init(&cfg, o.logical_pages);
	cfg.page_size = o.page_size;
	cfg.pages_per_block = o.pages_per_block;
	cfg.op_percent = o.op_percent;
	cfg.gc_policy = (enum ftl_gc_policy)o.policy;
	cfg.wl_threshold = o.wl_threshold;
	cfg.gc_low_blocks = o.gc_low;
	cfg.gc_high_blocks = o.gc_high;
	cfg.program_fail_ppm = o.program_fail_ppm;
	cfg.erase_fail_ppm = o.erase_fail_ppm;
	cfg.endurance = o.endurance;
	cfg.fault_seed = o.fault_seed;

	if (ftl_config_check(&cfg, &s.geo, &why)) {
		fprintf(stderr, "%s: invalid geometry: %s\n", prog,
			why ? why : "(no reason given)");
		return 1;
	}
	if (o.timing && setup_timing(&s, &eng))
		return 1;
	ftl_port_quiet = true;	/* the reason is printed below */
	/* without --timing no ops: the metadata-only fast path */
	s.ftl = simdev_create(&cfg, o.shards, s.timed ? &timed_ftl_ops : NULL,
			      s.timed, &err, &why);
	ftl_port_quiet = false;
	if (!s.ftl) {
		fprintf(stderr, "%s: %s with --shards %u: %s\n", prog,
			err == -ENOMEM ? "out of memory" : "invalid geometry",
			o.shards, why);
		return 1;
	}
	simdev_get_geometry(s.ftl, &s.geo);
	if (s.timed)
		timed_attach(s.timed, s.ftl->shard[0]);

	rng_seed(&s.rng, o.seed);
	s.trim_thresh = prob_threshold(o.trim_fraction);
	s.track = o.trim_fraction > 0;
	if (o.workload == WL_HOTCOLD) {
		s.hot_n = round_u64(s.geo.logical_pages * o.hot_pct / 100);
		if (s.hot_n < 1)
			s.hot_n = 1;
		if (s.hot_n > s.geo.logical_pages)
			s.hot_n = s.geo.logical_pages;
		s.hot_thresh = prob_threshold(o.access_pct / 100);
	}
	if (s.track) {
		s.vset.list = malloc(s.geo.logical_pages * sizeof(u32));
		s.vset.pos = malloc(s.geo.logical_pages * sizeof(u32));
		if (!s.vset.list || !s.vset.pos) {
			fprintf(stderr, "%s: out of memory\n", prog);
			return 1;
		}
		memset(s.vset.pos, 0xff, s.geo.logical_pages * sizeof(u32));
	}

	if (o.trace)
		return run_trace(&s);
	if (o.fill)
		run_fill(&s);
	if (o.warmup > 0)
		run_writes(&s, round_u64(o.warmup * s.geo.logical_pages));
	if (o.check)
		check_or_die(&s, "after fill and warmup");
	simdev_reset_stats(s.ftl);
	s.trims = 0;
	if (s.timed)
		timed_measure_start(s.timed);

	total = round_u64(o.writes * s.geo.logical_pages);
	interval = o.csv_interval ? o.csv_interval : (total + 99) / 100;
	if (!interval)
		interval = 1;
	if (o.csv) {
		csv = fopen(o.csv, "w");
		if (!csv) {
			fprintf(stderr, "%s: %s: %s\n", prog, o.csv,
				strerror(errno));
			return 1;
		}
		fprintf(csv, "host_writes,waf_so_far,free_blocks,valid_pages,"
			     "erase_spread");
		if (s.timed)
			timed_csv_header(csv);
		fputc('\n', csv);
	}

	/*
	 * Timed loop, in chunks between sampling points. The samples walk
	 * every block (ftl_get_stats), ~100 of them per run: negligible.
	 */
	t0 = now();
	for (done = 0; done < total && !s.worn_out; ) {
		u64 n = total - done < interval ? total - done : interval;

		run_writes(&s, n);
		done += n;
		sample(&s, csv);
	}
	elapsed = now() - t0;
	simdev_get_stats(s.ftl, &st);
	/* Worn out: the measured writes are those the device took. */
	if (s.worn_out)
		total = st.host_pages_written;

	if (csv && fclose(csv)) {
		fprintf(stderr, "%s: %s: %s\n", prog, o.csv, strerror(errno));
		return 1;
	}
	if (o.check)
		check_or_die(&s, "at the end");

	simdev_get_stats(s.ftl, &st);
	if (o.json)
		print_json(&s, &st, elapsed, total);
	else
		print_human(&s, &st, elapsed, total);

	simdev_destroy(s.ftl);
	if (s.timed)
		timed_free(s.timed);
	free(s.vset.list);
	free(s.vset.pos);
	return 0;
}
