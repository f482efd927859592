// SPDX-License-Identifier: GPL-2.0
/*
 * timing.c - the NAND timing model (timing.h): per-die and per-channel
 * "busy until" times and the idle periods before them, taken by each
 * read, program and erase in the order the FTL issues them.
 */
#include "timing.h"

static inline u64 max_u64(u64 a, u64 b)
{
	return a > b ? a : b;
}

static inline u64 min_u64(u64 a, u64 b)
{
	return a < b ? a : b;
}

void ftl_timing_config_init(struct ftl_timing_config *cfg, u32 page_size,
			    u32 pages_per_block)
{
	cfg->channels = FTL_TIMING_DEFAULT_CHANNELS;
	cfg->dies_per_channel = FTL_TIMING_DEFAULT_DIES_PER_CHANNEL;
	cfg->read_us = FTL_TIMING_DEFAULT_READ_US;
	cfg->program_us = FTL_TIMING_DEFAULT_PROGRAM_US;
	cfg->erase_us = FTL_TIMING_DEFAULT_ERASE_US;
	cfg->channel_mbps = FTL_TIMING_DEFAULT_CHANNEL_MBPS;
	cfg->page_size = page_size;
	cfg->pages_per_block = pages_per_block;
}

static bool one_to(u32 v, u32 max)
{
	return v >= 1 && v <= max;
}

int ftl_timing_config_check(const struct ftl_timing_config *cfg,
			    const char **why)
{
	const char *bad = NULL;

	if (!one_to(cfg->channels, FTL_TIMING_MAX_CHANNELS))
		bad = "channels must be 1..64";
	else if (!one_to(cfg->dies_per_channel,
			 FTL_TIMING_MAX_DIES_PER_CHANNEL))
		bad = "dies_per_channel must be 1..64";
	else if (!one_to(cfg->read_us, FTL_TIMING_MAX_US))
		bad = "read_us must be 1..1000000";
	else if (!one_to(cfg->program_us, FTL_TIMING_MAX_US))
		bad = "program_us must be 1..1000000";
	else if (!one_to(cfg->erase_us, FTL_TIMING_MAX_US))
		bad = "erase_us must be 1..1000000";
	else if (!one_to(cfg->channel_mbps, FTL_TIMING_MAX_MBPS))
		bad = "channel_mbps must be 1..100000";
	else if (!cfg->page_size || !cfg->pages_per_block)
		bad = "page_size and pages_per_block must be positive";
	if (why)
		*why = bad;
	return bad ? -EINVAL : 0;
}

int ftl_timing_init(struct ftl_timing *t, const struct ftl_timing_config *cfg)
{
	int err = ftl_timing_config_check(cfg, NULL);

	t->die_free = NULL;
	t->chan_free = NULL;
	t->die_gaps = NULL;
	t->chan_gaps = NULL;
	if (err)
		return err;
	t->cfg = *cfg;
	t->dies = cfg->channels * cfg->dies_per_channel;
	t->read_ns = cfg->read_us * 1000ULL;
	t->program_ns = cfg->program_us * 1000ULL;
	t->erase_ns = cfg->erase_us * 1000ULL;
	/* bytes / (MB/s) = microseconds; rounded up, never free */
	t->xfer_ns = ftl_div_u64(cfg->page_size * 1000ULL +
				 cfg->channel_mbps - 1, cfg->channel_mbps);
	t->die_free = ftl_zalloc(t->dies * sizeof(*t->die_free));
	t->chan_free = ftl_zalloc(cfg->channels * sizeof(*t->chan_free));
	t->die_gaps = ftl_zalloc(t->dies * sizeof(*t->die_gaps));
	t->chan_gaps = ftl_zalloc(cfg->channels * sizeof(*t->chan_gaps));
	if (!t->die_free || !t->chan_free || !t->die_gaps || !t->chan_gaps) {
		ftl_timing_free(t);
		return -ENOMEM;
	}
	t->st = (struct ftl_timing_stats){ 0 };
	return 0;
}

void ftl_timing_free(struct ftl_timing *t)
{
	ftl_free(t->die_free);
	ftl_free(t->chan_free);
	ftl_free(t->die_gaps);
	ftl_free(t->chan_gaps);
	t->die_free = NULL;
	t->chan_free = NULL;
	t->die_gaps = NULL;
	t->chan_gaps = NULL;
}

u32 ftl_timing_die(const struct ftl_timing *t, u32 ppn)
{
	return (ppn % t->cfg.pages_per_block) % t->dies;
}

static u32 channel_of(const struct ftl_timing *t, u32 die)
{
	return die % t->cfg.channels;
}

static void gap_remove(struct ftl_timing_gaps *gs, u32 i)
{
	for (; i + 1 < gs->n; i++)
		gs->g[i] = gs->g[i + 1];
	gs->n--;
}

/* Insert [start, end) as gap @i; when full, forget the earliest first. */
static void gap_insert(struct ftl_timing_gaps *gs, u32 i, u64 start, u64 end)
{
	u32 j;

	if (gs->n == FTL_TIMING_GAPS) {
		gap_remove(gs, 0);
		if (i)
			i--;
	}
	for (j = gs->n; j > i; j--)
		gs->g[j] = gs->g[j - 1];
	gs->g[i].start = start;
	gs->g[i].end = end;
	gs->n++;
}

/*
 * Book @len of a die or channel (busy until *@free, idle during @gs) no
 * earlier than @ready: in the first idle period it fits in, else after
 * *@free, leaving [*@free, @ready) idle if @ready is later.
 * Return: the start.
 */
static u64 reserve(u64 *free, struct ftl_timing_gaps *gs, u64 ready, u64 len)
{
	u64 start;
	u32 i;

	for (i = 0; i < gs->n; i++) {
		u64 gap_start = gs->g[i].start, gap_end = gs->g[i].end;

		start = max_u64(gap_start, ready);
		if (start + len > gap_end)
			continue;
		if (start + len < gap_end) {
			if (start > gap_start) {
				gs->g[i].end = start;
				gap_insert(gs, i + 1, start + len, gap_end);
			} else {
				gs->g[i].start = start + len;
			}
		} else if (start > gap_start) {
			gs->g[i].end = start;
		} else {
			gap_remove(gs, i);
		}
		return start;
	}
	start = max_u64(ready, *free);
	if (start > *free)
		gap_insert(gs, gs->n, *free, start);
	*free = start + len;
	return start;
}

static void note_done(struct ftl_timing *t, u64 done)
{
	t->st.last_done_ns = max_u64(t->st.last_done_ns, done);
}

static u64 die_busy(struct ftl_timing *t, u32 die, u64 ready, u64 len)
{
	return reserve(&t->die_free[die], &t->die_gaps[die], ready, len) + len;
}

static u64 chan_busy(struct ftl_timing *t, u32 ch, u64 ready)
{
	t->st.channel_ns += t->xfer_ns;
	return reserve(&t->chan_free[ch], &t->chan_gaps[ch], ready,
		       t->xfer_ns) + t->xfer_ns;
}

/*
 * Array read on the die, then the transfer out over its channel; the die
 * is free again once the data sits in its page register.
 * Return: when the data has left the channel.
 */
static u64 nand_read(struct ftl_timing *t, u32 ppn, u64 ready)
{
	u32 die = ftl_timing_die(t, ppn);
	u64 sensed = die_busy(t, die, ready, t->read_ns);
	u64 out = chan_busy(t, channel_of(t, die), sensed);

	note_done(t, out);
	return out;
}

/*
 * Transfer in over the channel, then the program on the die.
 * Return: when the program ends.
 */
static u64 nand_program(struct ftl_timing *t, u32 ppn, u64 ready)
{
	u32 die = ftl_timing_die(t, ppn);
	u64 in = chan_busy(t, channel_of(t, die), ready);
	u64 done = die_busy(t, die, in, t->program_ns);

	note_done(t, done);
	return done;
}

void ftl_timing_req_start(struct ftl_timing_req *r, u64 arrival)
{
	r->arrival = arrival;
	r->gc_done = arrival;
	r->done = arrival;
}

void ftl_timing_host_read(struct ftl_timing *t, struct ftl_timing_req *r,
			  u32 ppn)
{
	r->done = max_u64(r->done, nand_read(t, ppn, r->arrival));
	t->st.host_read_ns += t->read_ns;
}

void ftl_timing_host_program(struct ftl_timing *t, struct ftl_timing_req *r,
			     u32 ppn)
{
	r->done = max_u64(r->done, nand_program(t, ppn, r->gc_done));
	t->st.host_program_ns += t->program_ns;
}

void ftl_timing_relocate(struct ftl_timing *t, struct ftl_timing_req *r,
			 u32 from, u32 to)
{
	u64 read = nand_read(t, from, r->arrival);
	u64 done = nand_program(t, to, read);

	r->gc_done = max_u64(r->gc_done, done);
	r->done = max_u64(r->done, done);
	t->st.gc_read_ns += t->read_ns;
	t->st.gc_program_ns += t->program_ns;
}

void ftl_timing_erase(struct ftl_timing *t, struct ftl_timing_req *r,
		      u32 block)
{
	/* A block with fewer pages than dies only spans that many. */
	u32 dies = t->cfg.pages_per_block < t->dies ?
		   t->cfg.pages_per_block : t->dies;
	u32 d;

	(void)block;	/* every block spans the same dies */
	for (d = 0; d < dies; d++) {
		u64 done = die_busy(t, d, r->arrival, t->erase_ns);

		r->gc_done = max_u64(r->gc_done, done);
		note_done(t, done);
	}
	r->done = max_u64(r->done, r->gc_done);
	t->st.erase_ns += dies * t->erase_ns;
}

u64 ftl_timing_req_end(struct ftl_timing *t, struct ftl_timing_req *r)
{
	u64 latency = r->done - r->arrival;

	t->st.requests++;
	t->st.latency_ns_total += latency;
	return latency;
}

void ftl_timing_abort(struct ftl_timing *t, u64 now)
{
	u32 i;

	for (i = 0; i < t->dies; i++) {
		t->die_free[i] = min_u64(t->die_free[i], now);
		t->die_gaps[i].n = 0;
	}
	for (i = 0; i < t->cfg.channels; i++) {
		t->chan_free[i] = min_u64(t->chan_free[i], now);
		t->chan_gaps[i].n = 0;
	}
	t->st.last_done_ns = min_u64(t->st.last_done_ns, now);
}
