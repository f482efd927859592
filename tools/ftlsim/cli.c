// SPDX-License-Identifier: GPL-2.0
/*
 * ftlsim's command line: every flag (README.md's table), its parsing and
 * its checks, into struct opts; a bad value ends the program with a line
 * naming the flag and what it allows.
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

#include "ftlsim.h"

const char *prog = "ftlsim";

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
"Placement (write lifetime hints, write streams):\n"
"  --placement-classes N host write classes, each filling its own open\n"
"                        block, 0..%u (default 0: one class); GC shares\n"
"                        one more. Each class past the first needs one\n"
"                        more spare block\n"
"  --classify C          the class of a synthetic write: none (default,\n"
"                        class 0) | hotcold (the hotcold workload's hot\n"
"                        pages class 1, the others class 0)\n"
"Flash faults (the run stops early if the device wears out):\n"
"  --program-fail-ppm N  page programs that fail, per million (default 0)\n"
"  --erase-fail-ppm N    block erases that fail, per million (default 0)\n"
"  --endurance N         erases a block survives, 0 = unlimited (default 0)\n"
"  --remanence           superseded pages keep their data until erased:\n"
"                        count them (pages_stale)\n"
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
"  --trace-format F      blkparse | iolog | msr | ftlblk (required with\n"
"                        --trace; ftlblk: the module's ftlblk_request\n"
"                        events, with write-zeroes and secure erase)\n"
"  --blkparse-event E    blkparse event that is a request: D (dispatch,\n"
"                        default), C (completion) or Q (queued bio)\n"
"  --trace-dump          print each parsed request (LINE OP SECTOR COUNT)\n"
"                        instead of replaying; OP: read, write, discard,\n"
"                        write-zeroes, write-zeroes-unmap, secure-erase\n"
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
		FTL_MAX_CLASSES,
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

/* An integer in [@min, @max]; the message names the flag and the range. */
static u32 parse_between(const char *opt, const char *s, u32 min, u32 max)
{
	u64 v = parse_size(opt, s);

	if (v < min || v > max) {
		char msg[100];

		snprintf(msg, sizeof(msg), "%s must be in %u..%u", opt, min,
			 max);
		bad("%s", msg);
	}
	return (u32)v;
}

static u32 parse_range(const char *opt, const char *s, u32 max)
{
	return parse_between(opt, s, 1, max);
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
	O_PROGRAM_FAIL, O_ERASE_FAIL, O_ENDURANCE, O_REMANENCE, O_FAULT_SEED,
	O_TIMING, O_CHANNELS, O_DIES, O_READ_US, O_PROGRAM_US, O_ERASE_US,
	O_CHANNEL_MBPS, O_QUEUE_DEPTH, O_REQUEST_PAGES, O_READ_FRACTION,
	O_SHARDS, O_PLACEMENT_CLASSES, O_CLASSIFY,
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
	{ "placement-classes",	required_argument, NULL, O_PLACEMENT_CLASSES },
	{ "classify",		required_argument, NULL, O_CLASSIFY },
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
	{ "remanence",		no_argument,	   NULL, O_REMANENCE },
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

void parse_args(struct opts *o, int argc, char **argv)
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
		case O_PLACEMENT_CLASSES:
			o->placement_classes =
				parse_between(name, optarg, 0, FTL_MAX_CLASSES);
			break;
		case O_CLASSIFY:
			if (!strcmp(optarg, "none"))
				o->classify = CLASSIFY_NONE;
			else if (!strcmp(optarg, "hotcold"))
				o->classify = CLASSIFY_HOTCOLD;
			else
				bad("unknown --classify '%s' (none, hotcold)",
				    optarg);
			break;
		case O_PROGRAM_FAIL:
			o->program_fail_ppm = parse_u32(name, optarg);
			break;
		case O_ERASE_FAIL:
			o->erase_fail_ppm = parse_u32(name, optarg);
			break;
		case O_REMANENCE:
			o->remanence = 1;
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
				bad("unknown trace format '%s' (blkparse, "
				    "iolog, msr, ftlblk)", optarg);
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
		bad("%s", "--trace needs --trace-format "
		    "blkparse|iolog|msr|ftlblk");
	if (!o->trace && (o->trace_format >= 0 || o->trace_dump))
		bad("%s", "--trace-format and --trace-dump need --trace FILE");
	if (o->trace && o->workload_given)
		bad("%s", "--trace replaces --workload, --trim-fraction, --writes "
		    "and --warmup");
	if (o->trace && o->classify)
		bad("%s", "--classify is for synthetic workloads: a trace's "
		    "writes carry their class (ftlblk format, class=N)");
	if (o->classify == CLASSIFY_HOTCOLD && o->workload != WL_HOTCOLD)
		bad("%s", "--classify hotcold needs --workload hotcold");
	if (o->classify && o->placement_classes < 2)
		bad("%s", "--classify hotcold needs --placement-classes 2 or "
		    "more (it writes classes 0 and 1)");
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
