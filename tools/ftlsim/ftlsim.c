// SPDX-License-Identifier: GPL-2.0
/*
 * ftlsim - drive the portable FTL core (../../ftl/) with synthetic
 * workloads or block traces in user space and report write amplification,
 * GC and wear statistics. The core runs metadata-only (no struct
 * ftl_ops), so a simulation of a large device costs a few bytes per page
 * and runs at millions of page writes per second. With --timing, the
 * core's relocations and erases go to the NAND timing model instead
 * (timed.c).
 *
 * This file: main (a run from its options to its report) and the trace
 * replay (--trace); the command line is cli.c, the synthetic workloads
 * workload.c, the report report.c, a device of shards device.c. See
 * README.md for the flags and the validation tests.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ftlsim.h"

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

/* A write of a class other than 0 shows it: iologs dump as before. */
static void dump_one(struct sim *s, const struct trace_req *req)
{
	printf("%llu %s %llu %llu", (ULL)s->tp.line, trace_req_name(req),
	       (ULL)req->sector, (ULL)req->nr_sects);
	if (req->cls)
		printf(" class=%u", req->cls);
	printf("\n");
}

static FILE *trace_csv;
static u64 trace_next_sample, trace_interval;

static void replay_one(struct sim *s, const struct trace_req *req)
{
	const char *why = NULL;
	int err = replay_req(&s->rp, req, &why);

	if (err) {
		char msg[200], cls[40] = "";

		if (req->cls)
			snprintf(cls, sizeof(cls), " class=%u", req->cls);
		snprintf(msg, sizeof(msg), "%s %llu + %llu%s: %s",
			 trace_req_name(req), (ULL)req->sector,
			 (ULL)req->nr_sects, cls, why ? why : strerror(-err));
		trace_fail(s, msg);
	}
	if (replay_requests(&s->rp) >= trace_next_sample) {
		sample(s, trace_csv);
		trace_next_sample += trace_interval;
	}
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
	cfg.remanence = o.remanence;
	cfg.placement_classes = o.placement_classes;
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
