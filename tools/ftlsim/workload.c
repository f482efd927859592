// SPDX-License-Identifier: GPL-2.0
/*
 * ftlsim's synthetic workloads: uniform, sequential and hot/cold host
 * page writes, with trims of valid pages mixed in (--trim-fraction) and
 * placement classes (--classify), the fill of the whole device, and with
 * --timing the same as requests for the NAND timing model (timed.c); the
 * periodic sample of the statistics (--csv). The PRNG is xoshiro256**
 * (ftlsim.h), seeded by --seed: one seed, one run. Runs without trims or
 * timing draw their pages a few writes ahead to prefetch the map entries
 * (next_lpn_ahead()): the same pages in the same order.
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

double now(void)
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
 * The placement class of a write to @lpn (--classify): a function of the
 * page alone, as a file's write lifetime hint is of the file, so that
 * classifying draws nothing from the PRNG and changes no page written.
 */
static inline u32 write_class(const struct sim *s, u64 lpn)
{
	return s->o->classify == CLASSIFY_HOTCOLD && lpn < s->hot_n;
}

/*
 * Write @lpn; *@ppn receives the page programmed.
 * Return: false once the device has worn out (the write was refused).
 */
static inline bool sim_write_at(struct sim *s, u64 lpn, u32 *ppn)
{
	int err = simdev_write_class(s->ftl, lpn, write_class(s, lpn), ppn);

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

/*
 * The workload's next page, as next_lpn() gives it, from a ring of pages
 * drawn SIM_LOOKAHEAD writes ahead: the page entering the ring has its
 * map entry prefetched, the one SIM_LOOKAHEAD_DEEP from the head its
 * current copy's reverse-map entry and block, so a write finds them in
 * cache instead of waiting for each in turn. The pages and their order
 * are next_lpn()'s: the same seed writes the same pages. Only for runs
 * that draw nothing else from the PRNG between writes (no trims).
 */
static u64 next_lpn_ahead(struct sim *s)
{
	const u32 mask = SIM_LOOKAHEAD - 1;
	u64 lpn;

	while (s->ahead_n < SIM_LOOKAHEAD) {
		lpn = next_lpn(s);
		s->ahead[(s->ahead_pos + s->ahead_n++) & mask] = lpn;
		simdev_prefetch_write(s->ftl, lpn, false);
	}
	simdev_prefetch_write(s->ftl,
			      s->ahead[(s->ahead_pos + SIM_LOOKAHEAD_DEEP) & mask],
			      true);
	lpn = s->ahead[s->ahead_pos];
	s->ahead_pos = (s->ahead_pos + 1) & mask;
	s->ahead_n--;
	return lpn;
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
void run_writes(struct sim *s, u64 count)
{
	u64 i;

	if (s->timed) {
		run_timed(s, count);
		return;
	}
	if (!s->track) {
		for (i = 0; i < count; i++)
			if (!sim_write(s, next_lpn_ahead(s)))
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
void run_fill(struct sim *s)
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

void check_or_die(struct sim *s, const char *when)
{
	if (simdev_check(s->ftl)) {
		fprintf(stderr, "%s: ftl_check() failed %s\n", prog, when);
		exit(1);
	}
}

double waf_of(const struct ftl_stats *st)
{
	return st->host_pages_written ?
		(double)st->nand_pages_written / st->host_pages_written : 0;
}

void sample(struct sim *s, FILE *csv)
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
