/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timing.h - how long NAND flash takes: a portable timing model.
 *
 * The FTL core (ftl.h) decides which page is programmed, copied or erased;
 * this model says when each of those operations can run and when it
 * ends, so a host (the ftlblk module, ftlsim) can complete a request no
 * earlier than the flash it models would, and garbage collection costs
 * time as it does on a real SSD.
 *
 * Geometry: channels * dies_per_channel dies. An FTL erase block is a
 * superblock striped over every die: page i of a block lives on die
 * i % dies, and die d is attached to channel d % channels, so the pages
 * of an open block - and so sequential programs - spread over every die
 * and every channel (FEMU's and NVMeVirt's "lines").
 *
 * Costs (NVMeVirt's model): a page read occupies its die for read_ns, then
 * its channel for one page transfer (page_size / channel bandwidth); a
 * program occupies the channel for a transfer, then the die for
 * program_ns; an erase occupies every die of the superblock for erase_ns.
 * Each die and channel has a "busy until" time and remembers its last
 * FTL_TIMING_GAPS idle periods before it. Operations are placed in the
 * order the host issues them, and never moved once placed: each takes the
 * earliest idle period of the die or channel it needs that starts, or
 * lasts, after its inputs are there - an idle period left before an
 * operation that had to wait for its inputs, or the time after the busy
 * period. (Without the idle periods, a command waiting for its data would
 * block every later command of its die or channel, which a controller's
 * queues do not: the model then reached half of the dies' throughput
 * under garbage collection.)
 *
 * Requests: a host request's operations are issued with a struct
 * ftl_timing_req. Reads and GC work start at the request's arrival; a
 * host program waits for the garbage collection and wear leveling issued
 * for the same request so far (the FTL needed that free space first); a
 * relocation's program waits for its read. The request completes when its
 * last operation does. Times are nanoseconds on any clock the host
 * chooses (ftlblk: ktime; ftlsim: simulated, from 0).
 *
 * Concurrency: none inside; the host serializes calls on one struct
 * ftl_timing. No call but ftl_timing_init() allocates, none sleeps.
 */
#ifndef FTL_TIMING_H
#define FTL_TIMING_H

#include "ftl_port.h"

#define FTL_TIMING_MAX_CHANNELS		64
#define FTL_TIMING_MAX_DIES_PER_CHANNEL	64
#define FTL_TIMING_MAX_US		1000000
#define FTL_TIMING_MAX_MBPS		100000

/* A modest SATA SSD of about 2009. */
#define FTL_TIMING_DEFAULT_CHANNELS		4
#define FTL_TIMING_DEFAULT_DIES_PER_CHANNEL	2
#define FTL_TIMING_DEFAULT_READ_US		50
#define FTL_TIMING_DEFAULT_PROGRAM_US		600
#define FTL_TIMING_DEFAULT_ERASE_US		2000
#define FTL_TIMING_DEFAULT_CHANNEL_MBPS		200

/**
 * struct ftl_timing_config - flash geometry and operation costs
 * @channels: channels, [1, FTL_TIMING_MAX_CHANNELS]
 * @dies_per_channel: dies on each channel, [1, FTL_TIMING_MAX_DIES_PER_CHANNEL]
 * @read_us: tR, array read time of a page, [1, FTL_TIMING_MAX_US]
 * @program_us: tPROG, page program time, [1, FTL_TIMING_MAX_US]
 * @erase_us: tBERS, block erase time, [1, FTL_TIMING_MAX_US]
 * @channel_mbps: channel bandwidth in MB/s (10^6 bytes per second),
 *	[1, FTL_TIMING_MAX_MBPS]
 * @page_size: flash page size in bytes (the FTL's)
 * @pages_per_block: pages in an FTL (super)block (the FTL's)
 */
struct ftl_timing_config {
	u32 channels;
	u32 dies_per_channel;
	u32 read_us;
	u32 program_us;
	u32 erase_us;
	u32 channel_mbps;
	u32 page_size;
	u32 pages_per_block;
};

/**
 * struct ftl_timing_stats - where the flash spent its time
 * @host_read_ns: die time of host page reads
 * @host_program_ns: die time of host page programs
 * @gc_read_ns: die time of GC and wear-leveling page reads
 * @gc_program_ns: die time of GC and wear-leveling page programs
 * @erase_ns: die time of erases (erase_us on every die per block)
 * @channel_ns: channel time of all page transfers
 * @requests: host requests timed (ftl_timing_req_end())
 * @latency_ns_total: sum of their modeled latencies
 * @last_done_ns: latest completion time of any operation so far
 */
struct ftl_timing_stats {
	u64 host_read_ns;
	u64 host_program_ns;
	u64 gc_read_ns;
	u64 gc_program_ns;
	u64 erase_ns;
	u64 channel_ns;
	u64 requests;
	u64 latency_ns_total;
	u64 last_done_ns;
};

/*
 * Idle periods each die and channel remembers; when a new one would be
 * one too many, the earliest is forgotten (treated as busy). A host's
 * arrival times only grow, so the earliest is the least likely to fit.
 */
#define FTL_TIMING_GAPS	16

/**
 * struct ftl_timing_gaps - idle periods of a die or channel before its
 * busy-until time
 * @n: how many, at most FTL_TIMING_GAPS
 * @g: [start, end) of each, in time order, disjoint
 */
struct ftl_timing_gaps {
	u32 n;
	struct {
		u64 start;
		u64 end;
	} g[FTL_TIMING_GAPS];
};

/**
 * struct ftl_timing - the model's state
 * @cfg: as configured
 * @dies: channels * dies_per_channel
 * @read_ns: tR in ns
 * @program_ns: tPROG in ns
 * @erase_ns: tBERS in ns
 * @xfer_ns: one page transfer on a channel, in ns (at least 1)
 * @die_free: per die, the time it finishes its last operation
 * @chan_free: per channel, the time it finishes its last transfer
 * @die_gaps: per die, idle periods before @die_free
 * @chan_gaps: per channel, idle periods before @chan_free
 * @st: counters
 */
struct ftl_timing {
	struct ftl_timing_config cfg;
	u32 dies;
	u64 read_ns;
	u64 program_ns;
	u64 erase_ns;
	u64 xfer_ns;
	u64 *die_free;
	u64 *chan_free;
	struct ftl_timing_gaps *die_gaps;
	struct ftl_timing_gaps *chan_gaps;
	struct ftl_timing_stats st;
};

/**
 * struct ftl_timing_req - one host request being timed
 * @arrival: when the host received it
 * @gc_done: when the GC and wear-leveling work issued for it so far ends
 *	(@arrival if none)
 * @done: when its last operation ends (@arrival if none)
 */
struct ftl_timing_req {
	u64 arrival;
	u64 gc_done;
	u64 done;
};

/**
 * ftl_timing_config_init() - fill @cfg with the defaults
 * @cfg: configuration
 * @page_size: the FTL's page size
 * @pages_per_block: the FTL's pages per block
 */
void ftl_timing_config_init(struct ftl_timing_config *cfg, u32 page_size,
			    u32 pages_per_block);

/**
 * ftl_timing_config_check() - validate without allocating
 * @cfg: configuration
 * @why: if not NULL, receives a static sentence naming the bad field and
 *	its allowed range
 *
 * Return: 0 or -EINVAL.
 */
int ftl_timing_config_check(const struct ftl_timing_config *cfg,
			    const char **why);

/**
 * ftl_timing_init() - set up a model with every die and channel idle
 * @t: the model
 * @cfg: configuration; checked with ftl_timing_config_check()
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int ftl_timing_init(struct ftl_timing *t, const struct ftl_timing_config *cfg);

/**
 * ftl_timing_free() - free what ftl_timing_init() allocated
 * @t: the model (initialized, or zeroed)
 */
void ftl_timing_free(struct ftl_timing *t);

/**
 * ftl_timing_die() - the die physical page @ppn lives on
 * @t: the model
 * @ppn: physical page number
 *
 * Return: die number in [0, dies).
 */
u32 ftl_timing_die(const struct ftl_timing *t, u32 ppn);

/**
 * ftl_timing_req_start() - begin timing a request
 * @r: the request's state
 * @arrival: when it arrived
 */
void ftl_timing_req_start(struct ftl_timing_req *r, u64 arrival);

/**
 * ftl_timing_host_read() - a host read of @ppn
 * @t: the model
 * @r: the request
 * @ppn: physical page
 */
void ftl_timing_host_read(struct ftl_timing *t, struct ftl_timing_req *r,
			  u32 ppn);

/**
 * ftl_timing_host_program() - a host program of @ppn, after the request's
 * garbage collection so far
 * @t: the model
 * @r: the request
 * @ppn: physical page
 */
void ftl_timing_host_program(struct ftl_timing *t, struct ftl_timing_req *r,
			     u32 ppn);

/**
 * ftl_timing_relocate() - GC or wear leveling copies @from to @to
 * @t: the model
 * @r: the request that made the FTL collect
 * @from: page read
 * @to: page programmed (after the read, through the controller: two
 *	transfers, no on-die copyback)
 */
void ftl_timing_relocate(struct ftl_timing *t, struct ftl_timing_req *r,
			 u32 from, u32 to);

/**
 * ftl_timing_erase() - GC or wear leveling erases @block on every die
 * @t: the model
 * @r: the request that made the FTL collect
 * @block: the block
 */
void ftl_timing_erase(struct ftl_timing *t, struct ftl_timing_req *r,
		      u32 block);

/**
 * ftl_timing_req_end() - the request is issued completely
 * @t: the model
 * @r: the request
 *
 * Counts it in requests and latency_ns_total.
 *
 * Return: its modeled latency in ns (r->done - r->arrival).
 */
u64 ftl_timing_req_end(struct ftl_timing *t, struct ftl_timing_req *r);

/**
 * ftl_timing_abort() - the flash loses power at @now
 * @t: model
 * @now: time of the power loss (ns)
 *
 * Every operation in progress or booked after @now is abandoned: each
 * die and channel is free from @now (a power cycle resets the NAND), so
 * requests after the power returns do not wait for work that never
 * happened. Statistics already counted stay.
 */
void ftl_timing_abort(struct ftl_timing *t, u64 now);

#endif /* FTL_TIMING_H */
