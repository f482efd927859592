// SPDX-License-Identifier: GPL-2.0
/*
 * timed.c - ftlsim --timing: the closed-loop engine on the NAND timing
 * model (timed.h). No libm: the guest links ftlsim without -lm.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "timed.h"

/* ---- the outstanding requests: a min-heap of completion times --------- */

static void timed_sift_down(u64 *h, u32 n, u32 i)
{
	for (;;) {
		u32 l = 2 * i + 1, m = i;
		u64 tmp;

		if (l < n && h[l] < h[m])
			m = l;
		if (l + 1 < n && h[l + 1] < h[m])
			m = l + 1;
		if (m == i)
			return;
		tmp = h[i];
		h[i] = h[m];
		h[m] = tmp;
		i = m;
	}
}

/*
 * The heap always holds queue_depth entries: the earliest completion is
 * replaced by the completion of the request that arrives then, so the
 * root's new value only has to sink.
 */
static void timed_replace_min(struct timed *e, u64 done)
{
	e->done[0] = done;
	timed_sift_down(e->done, e->p.queue_depth, 0);
}

/* ---- the FTL's garbage collection, charged to the current request ----- */

static struct ftl_timing_req *timed_cur(struct timed *e)
{
	/* GC only runs inside ftl_write(); if not, time it from now. */
	if (!e->in_req)
		ftl_timing_req_start(&e->req, e->now);
	return &e->req;
}

static void timed_move(void *ctx, u32 from, u32 to)
{
	struct timed *e = ctx;

	ftl_timing_relocate(&e->model, timed_cur(e), from, to);
}

static void timed_erased(void *ctx, u32 block, u32 erase_count)
{
	struct timed *e = ctx;

	(void)erase_count;
	ftl_timing_erase(&e->model, timed_cur(e), block);
}

const struct ftl_ops timed_ftl_ops = {
	.move = timed_move,
	.erased = timed_erased,
};

/* ---- set-up ------------------------------------------------------------ */

void timed_params_init(struct timed_params *p)
{
	memset(p, 0, sizeof(*p));
	ftl_timing_config_init(&p->cfg, 0, 0);
	p->queue_depth = TIMED_DEFAULT_QUEUE_DEPTH;
	p->request_pages = 1;
}

int timed_init(struct timed *e, const struct timed_params *p, u32 page_size,
	       u32 pages_per_block, const char **why)
{
	struct ftl_timing_config cfg = p->cfg;
	int err;

	memset(e, 0, sizeof(*e));
	e->p = *p;
	cfg.page_size = page_size;
	cfg.pages_per_block = pages_per_block;
	if (ftl_timing_config_check(&cfg, why))
		return -EINVAL;
	err = ftl_timing_init(&e->model, &cfg);
	if (err)
		return err;
	/* every slot free at time 0: the first queue_depth requests arrive */
	e->done = calloc(p->queue_depth, sizeof(*e->done));
	if (!e->done) {
		ftl_timing_free(&e->model);
		return -ENOMEM;
	}
	return 0;
}

void timed_attach(struct timed *e, struct ftl *ftl)
{
	struct ftl_geometry geo;

	ftl_get_geometry(ftl, &geo);
	e->ftl = ftl;
	e->logical_pages = geo.logical_pages;
}

void timed_free(struct timed *e)
{
	ftl_timing_free(&e->model);
	free(e->done);
	free(e->rd.v);
	free(e->wr.v);
	e->done = e->rd.v = e->wr.v = NULL;
}

/* ---- requests ---------------------------------------------------------- */

static void timed_oom(void)
{
	fprintf(stderr, "ftlsim: out of memory (latency log)\n");
	exit(1);
}

static void timed_lat_add(struct timed_lat *l, u64 ns)
{
	if (l->n == l->cap) {
		u64 cap = l->cap ? 2 * l->cap : 4096;
		u64 *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			timed_oom();
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = ns;
	l->sum += ns;
}

/* A read of @n pages from @lpn on; unmapped pages take no flash time. */
static void timed_read_pages(struct timed *e, u64 lpn, u64 n)
{
	for (u64 i = 0; i < n; i++) {
		u32 ppn;

		if (ftl_read(e->ftl, (lpn + i) % e->logical_pages, &ppn))
			continue;	/* cannot happen: lpn < logical_pages */
		if (ppn != FTL_UNMAPPED)
			ftl_timing_host_read(&e->model, &e->req, ppn);
	}
}

/*
 * A write of up to @n pages from @lpn on (wrapping at the end of the
 * device). Each program waits for the GC its own ftl_write() ran, and
 * for the GC of the request's earlier pages.
 * Return: pages written; fewer than @n if the device wore out.
 */
static u64 timed_write_pages(struct timed *e, const struct timed_source *src,
			     u64 lpn, u64 n)
{
	u64 i;

	for (i = 0; i < n; i++) {
		u32 ppn;

		if (!src->write(src->ctx, (lpn + i) % e->logical_pages, &ppn))
			break;
		ftl_timing_host_program(&e->model, &e->req, ppn);
	}
	return i;
}

/* The request is issued: its completion frees its slot. */
static void timed_complete(struct timed *e, bool read, u64 pages)
{
	u64 latency = ftl_timing_req_end(&e->model, &e->req);

	e->in_req = false;
	timed_replace_min(e, e->req.done);
	if (!e->measuring)
		return;
	if (!e->t0_set) {
		e->t0 = e->req.arrival;
		e->t0_set = true;
	}
	if (e->req.done > e->last_done)
		e->last_done = e->req.done;
	if (read) {
		timed_lat_add(&e->rd, latency);
		e->pages_read += pages;
	} else {
		timed_lat_add(&e->wr, latency);
		e->pages_written += pages;
	}
}

u64 timed_run(struct timed *e, const struct timed_source *src, u64 pages)
{
	u64 written = 0;

	while (written < pages) {
		u64 lpn, n = e->p.request_pages, got;
		bool read = src->next(src->ctx, &lpn);

		/* the earliest completion is the next arrival */
		e->now = e->done[0];
		ftl_timing_req_start(&e->req, e->now);
		e->in_req = true;
		if (read) {
			timed_read_pages(e, lpn, n);
			timed_complete(e, true, n);
			continue;
		}
		if (n > pages - written)
			n = pages - written;
		got = timed_write_pages(e, src, lpn, n);
		written += got;
		timed_complete(e, false, got);
		if (got < n)
			break;
	}
	return written;
}

void timed_measure_start(struct timed *e)
{
	e->measuring = true;
	e->st0 = e->model.st;
	e->t0_set = false;
	e->last_done = 0;
	e->rd.n = e->rd.sum = 0;
	e->wr.n = e->wr.sum = 0;
	e->pages_read = e->pages_written = 0;
	e->csv_ns = e->done[0];
	e->csv_pages = 0;
}

/* ---- results ----------------------------------------------------------- */

double timed_seconds(const struct timed *e)
{
	if (!e->t0_set || e->last_done <= e->t0)
		return 0;
	return (e->last_done - e->t0) * 1e-9;
}

static int timed_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest value with at least @permille of n at or below. */
static u64 timed_rank(const struct timed_lat *l, u64 permille)
{
	u64 rank = (l->n * permille + 999) / 1000;

	return l->v[rank ? rank - 1 : 0];
}

static void timed_summary(struct timed_lat *l, struct timed_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->count = l->n;
	if (!l->n)
		return;
	qsort(l->v, l->n, sizeof(*l->v), timed_cmp_u64);
	s->mean = (double)l->sum / l->n / 1000;
	s->p50 = timed_rank(l, 500) / 1000.0;
	s->p99 = timed_rank(l, 990) / 1000.0;
	s->p999 = timed_rank(l, 999) / 1000.0;
	s->max = l->v[l->n - 1] / 1000.0;
}

static double timed_host_mbps(const struct timed *e)
{
	double sec = timed_seconds(e);

	return sec > 0 ? (e->pages_read + e->pages_written) *
			 (double)e->model.cfg.page_size / sec / 1e6 : 0;
}

static double timed_iops(const struct timed *e)
{
	double sec = timed_seconds(e);

	return sec > 0 ? (e->rd.n + e->wr.n) / sec : 0;
}

static void timed_json_lat(FILE *f, const char *name, struct timed_lat *l)
{
	struct timed_summary s;

	timed_summary(l, &s);
	fprintf(f, "  \"%s\": {\"mean\": %.3f, \"p50\": %.3f, \"p99\": %.3f, "
		"\"p999\": %.3f, \"max\": %.3f, \"count\": %llu},\n", name,
		s.mean, s.p50, s.p99, s.p999, s.max, (unsigned long long)s.count);
}

#define TJU(name, v) \
	fprintf(f, "  \"%s\": %llu,\n", name, (unsigned long long)(v))
#define TJF(name, v)	fprintf(f, "  \"%s\": %.6f,\n", name, (double)(v))

void timed_json(struct timed *e, FILE *f)
{
	const struct ftl_timing_stats *st = &e->model.st, *z = &e->st0;
	const struct timed_params *p = &e->p;

	TJF("modeled_seconds", timed_seconds(e));
	TJF("host_iops", timed_iops(e));
	TJF("host_mbps", timed_host_mbps(e));
	timed_json_lat(f, "read_latency_us", &e->rd);
	timed_json_lat(f, "write_latency_us", &e->wr);
	TJU("host_busy_ns", st->host_read_ns + st->host_program_ns -
	    z->host_read_ns - z->host_program_ns);
	TJU("gc_busy_ns", st->gc_read_ns + st->gc_program_ns -
	    z->gc_read_ns - z->gc_program_ns);
	TJU("erase_busy_ns", st->erase_ns - z->erase_ns);
	TJU("channel_busy_ns", st->channel_ns - z->channel_ns);
	TJU("requests_timed", st->requests - z->requests);
	TJU("latency_ns_total", st->latency_ns_total - z->latency_ns_total);
	TJU("xfer_ns", e->model.xfer_ns);
	TJU("channels", p->cfg.channels);
	TJU("dies_per_channel", p->cfg.dies_per_channel);
	TJU("read_us", p->cfg.read_us);
	TJU("program_us", p->cfg.program_us);
	TJU("erase_us", p->cfg.erase_us);
	TJU("channel_mbps", p->cfg.channel_mbps);
	TJU("queue_depth", p->queue_depth);
	TJU("request_pages", p->request_pages);
	TJF("read_fraction", p->read_fraction);
}

static void timed_human_lat(FILE *f, const char *name, struct timed_lat *l)
{
	struct timed_summary s;

	timed_summary(l, &s);
	if (!s.count)
		return;
	fprintf(f, "latency:   %s %llu, us mean %.1f p50 %.1f p99 %.1f "
		"p99.9 %.1f max %.1f\n", name, (unsigned long long)s.count,
		s.mean, s.p50, s.p99, s.p999, s.max);
}

void timed_human(struct timed *e, FILE *f)
{
	const struct ftl_timing_config *c = &e->p.cfg;

	fprintf(f, "timing:    %u channels x %u dies, tR %u us, tPROG %u us, "
		"tBERS %u us, %u MB/s; QD %u, %u page(s)/request, reads %.3g\n",
		c->channels, c->dies_per_channel, c->read_us, c->program_us,
		c->erase_us, c->channel_mbps, e->p.queue_depth,
		e->p.request_pages, e->p.read_fraction);
	fprintf(f, "modeled:   %.6f s, %.0f IOPS, %.2f MB/s\n",
		timed_seconds(e), timed_iops(e), timed_host_mbps(e));
	timed_human_lat(f, "reads", &e->rd);
	timed_human_lat(f, "writes", &e->wr);
}

void timed_csv_header(FILE *f)
{
	fprintf(f, ",modeled_ns,host_mbps");
}

void timed_csv_row(struct timed *e, FILE *f)
{
	u64 pages = e->pages_read + e->pages_written;
	u64 dt = e->now > e->csv_ns ? e->now - e->csv_ns : 0;
	double mbps = dt ? (pages - e->csv_pages) *
			   (double)e->model.cfg.page_size * 1e3 / dt : 0;

	fprintf(f, ",%llu,%.3f", (unsigned long long)e->now, mbps);
	e->csv_ns = e->now;
	e->csv_pages = pages;
}
