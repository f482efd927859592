// SPDX-License-Identifier: GPL-2.0
/*
 * ftlsim's report: the statistics of a run as text or as JSON (--json),
 * under the names sysfs gives them on the module (docs/statistics.md;
 * scripts/doccheck checks that they agree).
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

/* Classes reported: the configured ones, at least class 0. */
static u32 nr_classes(const struct sim *s)
{
	return s->ftl->classes;
}

static const char *classify_name(enum classify c)
{
	return c == CLASSIFY_HOTCOLD ? "hotcold" : "none";
}

/*
 * The class counters of the measured phase, one array element per class:
 * @blocks picks blocks_filled, else pages_written.
 */
static void class_array(struct sim *s, const char *name, bool blocks)
{
	struct ftl_class_stats cs;
	u32 c;

	printf("  \"%s\": [", name);
	for (c = 0; c < nr_classes(s); c++) {
		simdev_get_class_stats(s->ftl, c, &cs);
		printf("%s%llu", c ? ", " : "",
		       (ULL)(blocks ? cs.blocks_filled : cs.pages_written));
	}
	printf("],\n");
}

void print_json(struct sim *s, const struct ftl_stats *st,
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
		JU("trace_requests", replay_requests(r));
		JU("read_requests", r->read_requests);
		JU("write_requests", r->write_requests);
		JU("discard_requests", r->discard_requests);
		JU("write_zeroes_requests", r->write_zeroes_requests);
		JU("secure_erase_requests", r->secure_erase_requests);
		JU("read_sectors", r->read_sectors);
		JU("write_sectors", r->write_sectors);
		JU("discard_sectors", r->discard_sectors);
		JU("write_zeroes_sectors", r->write_zeroes_sectors);
		JU("secure_erase_sectors", r->secure_erase_sectors);
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
	JU("secure_erases", st->secure_erases);
	JU("secure_erase_blocks", st->secure_erase_blocks);
	JU("secure_erase_relocations", st->secure_erase_relocations);
	JU("secure_erase_pages_left", st->secure_erase_pages_left);
	JU("discard_calls", st->discard_calls);
	JU("pages_discarded", st->pages_discarded);
	JU("valid_pages_discarded", st->valid_pages_discarded);
	JU("unmapped_reads", st->unmapped_reads);
	JU("program_failures", st->program_failures);
	JU("atomic_writes", st->atomic_writes);
	JU("atomic_pages_abandoned", st->atomic_pages_abandoned);
	JU("erase_failures", st->erase_failures);
	JU("valid_pages", st->valid_pages);
	JU("pages_stale", st->pages_stale);
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
	class_array(s, "class_pages_written", false);
	class_array(s, "class_blocks_filled", true);
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
	JU("remanence", o->remanence);
	JU("placement_classes", o->placement_classes);
	printf("  \"classify\": \"%s\",\n", classify_name(o->classify));
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

/*
 * Write-zeroes and secure erases (the ftlblk format only): what they
 * asked and what the secure erases did, under sysfs's names.
 */
static void print_zeroes(struct sim *s, const struct ftl_stats *st)
{
	const struct replay *r = &s->rp;

	if (s->o->trace_format != TRACE_FTLBLK && !r->write_zeroes_requests &&
	    !r->secure_erase_requests)
		return;
	printf("zeroes:    %llu write-zeroes (%llu sectors), %llu secure "
	       "erases (%llu sectors): %llu blocks erased, %llu pages "
	       "relocated, %llu left\n", (ULL)r->write_zeroes_requests,
	       (ULL)r->write_zeroes_sectors, (ULL)r->secure_erase_requests,
	       (ULL)r->secure_erase_sectors, (ULL)st->secure_erase_blocks,
	       (ULL)st->secure_erase_relocations,
	       (ULL)st->secure_erase_pages_left);
}

/* Per placement class: host pages written and blocks filled. */
static void print_classes(struct sim *s)
{
	struct ftl_class_stats cs;
	u32 c;

	printf("classes:   %u, classify %s; host pages written (blocks "
	       "filled) per class:", s->o->placement_classes,
	       classify_name(s->o->classify));
	for (c = 0; c < nr_classes(s); c++) {
		simdev_get_class_stats(s->ftl, c, &cs);
		printf(" %llu (%llu)%s", (ULL)cs.pages_written,
		       (ULL)cs.blocks_filled, c + 1 < nr_classes(s) ? "," : "");
	}
	printf("\n");
}

void print_human(struct sim *s, const struct ftl_stats *st,
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
		print_zeroes(s, st);
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
	if (o->placement_classes)
		print_classes(s);
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
