/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftlblk - a RAM-backed flash SSD with a real flash translation layer: the
 * device structure and the functions each file offers the others (the
 * file map and call layering are in docs/design.md).
 */
#ifndef FTLBLK_H
#define FTLBLK_H

#include <linux/badblocks.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "cache.h"
#include "compat.h"
#include "ftl.h"
#include "shard.h"
#include "timing.h"

/*
 * Every tunable is an unsigned int field of struct ftlblk_config, described
 * once in ftlblk_fields[] (config.c) with its name and allowed range, so the
 * module parameters and configfs validate and report errors the same way.
 */
enum ftlblk_field_id {
	FTLBLK_SIZE,
	FTLBLK_BLOCKSIZE,
	FTLBLK_PAGE_SIZE,
	FTLBLK_PAGES_PER_BLOCK,
	FTLBLK_OP_PERCENT,
	FTLBLK_GC_POLICY,
	FTLBLK_WL_THRESHOLD,
	FTLBLK_GC_LOW_BLOCKS,
	FTLBLK_GC_HIGH_BLOCKS,
	FTLBLK_DISCARD,
	FTLBLK_MAX_DISCARD_SEGMENTS,
	FTLBLK_MAX_DISCARD_SECTORS,
	FTLBLK_SUBMIT_QUEUES,
	FTLBLK_HW_QUEUE_DEPTH,
	FTLBLK_WRITE_CACHE,
	FTLBLK_CACHE_MIB,
	FTLBLK_PROGRAM_FAIL_PPM,
	FTLBLK_ERASE_FAIL_PPM,
	FTLBLK_FAULT_SEED,
	FTLBLK_ENDURANCE,
	FTLBLK_MEM_LIMIT_MIB,
	FTLBLK_TIMING,
	FTLBLK_CHANNELS,
	FTLBLK_DIES_PER_CHANNEL,
	FTLBLK_READ_US,
	FTLBLK_PROGRAM_US,
	FTLBLK_ERASE_US,
	FTLBLK_CHANNEL_MBPS,
	FTLBLK_POLL_QUEUES,
	FTLBLK_SHARDS,
	FTLBLK_REMANENCE,
	FTLBLK_SECURE_ERASE,
	FTLBLK_PLACEMENT,
	FTLBLK_WRITE_STREAMS,
	FTLBLK_ATOMIC_WRITE_MAX_KIB,
	FTLBLK_NR_FIELDS,
};

/*
 * What chooses a write's open erase block (placement=): nothing, its
 * write lifetime hint (6 classes: RWH_WRITE_LIFE_NOT_SET .. EXTREME), or
 * its write stream (write_streams + 1 classes, 0 = no stream).
 */
enum ftlblk_placement {
	FTLBLK_PLACE_NONE,
	FTLBLK_PLACE_HINT,
	FTLBLK_PLACE_STREAM,
	FTLBLK_NR_PLACEMENTS,
};

#define FTLBLK_HINT_CLASSES	6
/*
 * Largest atomic write in flash pages: one lock hold's batch (rw.c), so
 * that a write without the cache is applied in one hold, which a power
 * cut cannot split.
 */
#define FTLBLK_ATOMIC_MAX_PAGES	16
#define FTLBLK_MAX_WRITE_STREAMS	16

struct ftlblk_config {
	unsigned int val[FTLBLK_NR_FIELDS];
};

/**
 * struct ftlblk_field - one tunable
 * @name: configfs attribute and module parameter name
 * @min: smallest allowed value
 * @max: largest allowed value
 * @zero_ok: 0 is allowed too and means "the default"
 * @choices: if not NULL, the only allowed values (0-terminated); then
 *	@min and @max are not used
 * @help: allowed values and unit, for error messages
 */
struct ftlblk_field {
	const char *name;
	unsigned int min;
	unsigned int max;
	bool zero_ok;
	const unsigned int *choices;
	const char *help;
};

extern const struct ftlblk_field ftlblk_fields[FTLBLK_NR_FIELDS];	/* config.c */

/*
 * Device-level counters the FTL core does not keep (it sees whole pages),
 * as sysfs shows them: summed from the per-CPU ones (struct
 * ftlblk_pcpu_stats), the shards' (struct ftlblk_locked_counters) and
 * dev->power_cuts.
 */
struct ftlblk_counters {
	u64 discard_requests;	/* REQ_OP_DISCARD requests received */
	u64 discard_ranges;	/* ranges in them */
	u64 discard_sectors;	/* sectors covered by those ranges */
	u64 sectors_zeroed;	/* by discards of partial flash pages */
	u64 write_zeroes_requests;
	u64 flush_requests;
	u64 mem_limit_rejections;	/* requests failed at mem_limit_mib */
	u64 power_cuts;
	u64 cache_writebacks;		/* cached updates made durable */
	u64 pages_lost_at_power_cut;	/* cached updates dropped by cuts */
	u64 timeouts;			/* requests ended by blk-mq's timeout */
	u64 nomem_writes;		/* writes sent to the worker for memory */
	u64 flushes_failed_after_cut;	/* see ftlblk_flush_status() */
	u64 secure_erase_requests;
	u64 atomic_writes;		/* REQ_ATOMIC writes served */
	u64 atomic_writes_lost_at_power_cut;	/* dropped whole from the cache */
};

/**
 * struct ftlblk_snapshot - every statistic of a device, taken at once
 * (ftlblk_snapshot())
 * @ftl: the FTL counters, the shards' added up, with the reads the
 *	lock-free read path counted per CPU
 * @geo: the geometry, the shards' added up
 * @ctr: the device-level counters
 * @timing: the NAND timing model's counters (all 0 with timing=0)
 * @data_bytes: memory of the data pages the shards map, and with remanence=1
 *	of the stale pages they keep
 * @pool_bytes: memory of the free data pages pooled for reuse and in limbo
 * @metadata_bytes: memory of the maps, page tables and cache indexes
 * @cached_pages: logical pages whose latest update is cached
 * @read_only: 1 if any shard's FTL is read-only, else 0
 * @host_busy_ns: die time of host reads and programs (timing)
 * @gc_busy_ns: die time of GC and wear-leveling reads and programs
 * @physical_blocks: @geo's, as a u64
 * @pages_per_block: @geo's, as a u64
 *
 * Every statistic sysfs shows is one u64 here (sysfs.c's ftlblk_stats[]).
 */
struct ftlblk_snapshot {
	struct ftl_stats ftl;
	struct ftl_geometry geo;
	struct ftlblk_counters ctr;
	struct ftl_timing_stats timing;
	u64 data_bytes;
	u64 pool_bytes;
	u64 metadata_bytes;
	u64 cached_pages;
	u64 read_only;
	u64 host_busy_ns;
	u64 gc_busy_ns;
	u64 physical_blocks;
	u64 pages_per_block;
};

/* The counters kept under a shard's lock (ftlblk_shard.ctr): its cache. */
struct ftlblk_locked_counters {
	u64 cache_writebacks;		/* cached updates made durable */
	u64 pages_lost_at_power_cut;	/* cached updates dropped by cuts */
	u64 atomic_writes_lost_at_power_cut;	/* cached atomic writes dropped */
};

/*
 * What requests count without a lock, per CPU (as part_stat does);
 * sysfs adds them up. Named as in struct ftlblk_counters, and the reads
 * the FTL core does not see: host_pages_read and unmapped_reads of the
 * lock-free read path, added to the core's.
 */
enum ftlblk_pcpu_counter {
	FTLBLK_PC_HOST_PAGES_READ,
	FTLBLK_PC_UNMAPPED_READS,
	FTLBLK_PC_DISCARD_REQUESTS,
	FTLBLK_PC_DISCARD_RANGES,
	FTLBLK_PC_DISCARD_SECTORS,
	FTLBLK_PC_SECTORS_ZEROED,
	FTLBLK_PC_WRITE_ZEROES_REQUESTS,
	FTLBLK_PC_FLUSH_REQUESTS,
	FTLBLK_PC_MEM_LIMIT_REJECTIONS,
	FTLBLK_PC_TIMEOUTS,
	FTLBLK_PC_NOMEM_WRITES,
	FTLBLK_PC_FLUSHES_FAILED_AFTER_CUT,
	FTLBLK_PC_SECURE_ERASE_REQUESTS,
	FTLBLK_PC_ATOMIC_WRITES,
	FTLBLK_PC_NR,
};

struct ftlblk_pcpu_stats {
	u64 v[FTLBLK_PC_NR];
};

/* Add @n to this CPU's counter @id of @dev (any context). */
#define ftlblk_count(dev, id, n)	this_cpu_add((dev)->pcpu->v[(id)], (n))

/* Largest read or write request: 1 MiB, as brd's and most NVMe's. */
#define FTLBLK_MAX_HW_SECTORS	(SZ_1M >> SECTOR_SHIFT)
/* Flash pages a read or write request can touch (4 KiB pages, unaligned). */
#define FTLBLK_MAX_RQ_PAGES	((SZ_1M >> 12) + 1)
/*
 * data[] and the cache hold frame number + 1 in 32 bits: RAM below 16 TiB
 * (and below the cache's markers).
 */
#define FTLBLK_MAX_FRAME	((unsigned long)FTL_CACHE_MAX_HANDLE - 1)
/* Free data pages kept for reuse: two largest requests' worth. */
#define FTLBLK_POOL_MAX_BYTES	(2 * SZ_1M)
/*
 * How often limbo is trimmed to what writers took from it: long against
 * a grace period (milliseconds), short for memory to come back.
 */
#define FTLBLK_LIMBO_SCAN_MS	50
/* Grace periods a write on the worker waits for limbo at mem_limit_mib. */
#define FTLBLK_LIMBO_MAX_WAITS	4

/**
 * struct ftlblk_cmd - per-request driver data
 * @work: runs the request on ftlblk_wq (worker.c)
 * @treq: with timing=1, the request's modeled flash operations (complete.c)
 * @timer: with timing=1, ends the request at its modeled completion time
 * @sts: the status @timer or the poller ends it with
 * @gen: the power cycle it started in (&ftlblk_dev.cuts_seen then): a cut
 *	since may have dropped its effect from the write cache
 * @poll_entry: with timing=1 on a poll queue, in its &ftlblk_pollq.list
 *	until its modeled completion time (instead of @timer)
 * @poll_waiting: on that list (under the &ftlblk_pollq's lock)
 * @pages: a write's new data pages, taken before it touches the FTL; a
 *	discard's pages released by one batch of unmaps
 */
struct ftlblk_cmd {
	struct work_struct work;
	struct ftl_timing_req treq;
	struct hrtimer timer;
	blk_status_t sts;
	u32 gen;
	struct list_head poll_entry;
	bool poll_waiting;
	struct page *pages[FTLBLK_MAX_RQ_PAGES];
};

/**
 * struct ftlblk_released - pages the FTL released during one lock hold
 * @pages: room for them
 * @max: entries in @pages
 * @nr: entries used
 */
struct ftlblk_released {
	struct page **pages;
	unsigned int max;
	unsigned int nr;
};

/**
 * struct ftlblk_pollq - one poll queue's requests that wait for their
 * modeled completion (timing=1): the poller ends them (complete.c)
 * @lock: protects @list and the &ftlblk_cmd.poll_waiting of its requests;
 *	nests inside &ftlblk_dev.timing_lock; O(requests on the queue) per
 *	hold, at most hw_queue_depth
 * @list: the waiting requests' &ftlblk_cmd.poll_entry
 */
struct ftlblk_pollq {
	spinlock_t lock;	/* protects list, see above */
	struct list_head list;
} ____cacheline_aligned_in_smp;

/* power_cut_mode: what a power cut does to the cached updates. */
enum ftlblk_cut_mode {
	FTLBLK_CUT_ALL,		/* every one is lost */
	FTLBLK_CUT_RANDOM,	/* each is kept or lost, by chance */
};

/**
 * struct ftlblk_shard - one FTL instance of a device and the data pages it
 * maps (ftl/shard.h deals the logical pages: shards=N)
 * @dev: its device
 * @ftl: the FTL core instance, under @lock
 * @data: data[lpn] is the page frame number + 1 of the memory holding the
 *	shard's logical page lpn's data on flash (the page the FTL maps it
 *	to), 0 if none; written under @lock. 4 bytes where a pointer takes
 *	8, which keeps the page table at 0.1 % of the capacity (RAM must end
 *	below 16 TiB, checked at load). Indexed by logical page, not
 *	physical: GC moves a page's data without touching it (the core's
 *	maps move), and a reader finds the data in one load.
 * @first_block: the shard's block 0 in the device's block numbering
 *	(tracepoints, the timing model's dies)
 * @physical_pages: the shard's physical pages (debugfs.c)
 * @lock: protects @ftl (maps, GC, counters), @data, @data_pages, @stale,
 *	@stale_pages, @cached_class, @cached_unit, @rel,
 *	@treq, @ctr and @cache. Taken in task context only: from queue_rq
 *	(the submitter or a kworker, never interrupts), ftlblk_wq and sysfs.
 *	Nothing under it sleeps, and only the copies of a retiring block's
 *	stale pages (remanence=1) are allocated under it, with GFP_NOWAIT
 *	(flash.c): data pages are taken before it, and the pages the FTL
 *	releases are collected in the holder's array (@rel, see
 *	ftlblk_lock()) and sent to limbo by ftlblk_unlock() after it. One
 *	hold covers at most FTLBLK_BATCH_PAGES reads or writes (plus the GC
 *	they trigger and the cache write-backs they need),
 *	FTLBLK_UNMAP_BATCH unmapped pages, or one flush or power-cut batch.
 *	No code holds two shards' locks.
 * @data_pages: data pages the shard maps
 * @stale: with remanence=1, stale[ppn] is the page frame number + 1 of
 *	the memory holding physical page ppn's superseded data until its
 *	block's erase, 0 if none (flash.c); NULL with remanence=0
 * @stale_pages: pages @stale holds
 * @cached_class: with placement and the write cache, the placement class
 *	of each logical page's cached update, for its write-back; else NULL
 * @cached_unit: with atomic writes and the write cache, each logical
 *	page's position + 1 in the atomic write its cached update belongs to,
 *	0 for none (store.c); else NULL
 * @rel: the lock holder's array of released pages, or NULL
 * @treq: the request whose write runs under @lock now, so that the GC it
 *	triggers is charged to it (timing=1)
 * @ctr: the shard's write cache counters
 * @cache: the volatile write cache of the shard's logical pages (store.c,
 *	power.c), with write_cache=1: cache.slot is NULL without (cache_on
 *	false)
 *
 * The first four fields are read by every request; the rest, written by
 * every write, start on their own cache line, and so does each shard.
 */
struct ftlblk_shard {
	struct ftlblk_dev *dev;
	struct ftl *ftl;
	u32 *data;
	u32 first_block;
	u32 physical_pages;

	spinlock_t lock ____cacheline_aligned_in_smp;
	u64 data_pages;
	u32 *stale;
	u64 stale_pages;
	u8 *cached_class;
	u8 *cached_unit;
	struct ftlblk_released *rel;
	struct ftl_timing_req *treq;
	struct ftlblk_locked_counters ctr;
	struct ftl_cache cache;
} ____cacheline_aligned_in_smp;

/*
 * The fields are grouped by who writes them, so that what every request
 * reads shares no cache line with what every write dirties: first the
 * read-mostly ones, then one group per lock (each on its own cache line).
 */
struct ftlblk_dev {
	/* ---- Read-mostly: set at power-on, read by every request ---- */
	struct ftlblk_config cfg;	/* frozen at power-on */
	int index;			/* N of /dev/ftlblkN */
	struct gendisk *disk;
	unsigned int sectors_per_page;
	unsigned int page_shift;	/* log2 of the flash page size */
	unsigned int page_order;	/* data pages are 2^page_order pages */
	/* The FTL instances and how logical pages are dealt to them. */
	struct ftlblk_shard *shards;
	struct ftl_shards dealing;
	struct ftlblk_pcpu_stats __percpu *pcpu;
	bool cache_on;			/* write_cache=1 (ftlblk_cache_on()) */
	/* Largest atomic write in flash pages, 0 = none (rw.c). */
	unsigned int atomic_pages;
	bool timing_on;			/* timing=1, see timing_lock */
	/*
	 * power_off and cuts_seen (power cuts so far: the power cycle) are
	 * written under power_mutex at a cut and a restore only, and read
	 * without a lock by every request (queue_rq, completions), where a
	 * stale value only fails a request as if it had come a moment later
	 * (a cut takes every shard's lock once after setting them, so no
	 * change that checked power_off before is still running then).
	 */
	bool power_off;
	u32 cuts_seen;
	/*
	 * A flush owes the host an error for acknowledged updates a cut
	 * dropped (ftlblk_flush_status()): lost_cycle is the cycle (cuts_seen)
	 * of the last cut that dropped a cached update, written under
	 * power_mutex before the power comes back; reported_cycle the newest
	 * cycle whose losses a failed flush has reported (advanced with
	 * cmpxchg by flushes, rarely: only when one fails). Cycles are u32
	 * and compared by their difference: 2^31 cuts apart they alias.
	 */
	u32 lost_cycle;
	atomic_t reported_cycle;
	/*
	 * Some shard's FTL turned read-only and the device was marked so
	 * (wearout.c): set once, read by every change (store.c).
	 */
	atomic_t read_only_noted;
	unsigned long mem_limit_pages;	/* see mem_pages */
	/*
	 * At mem_limit_mib, free memory that only an erase gives back
	 * (remanence=1: flash.c's ftlblk_reclaim_stale(), set at power-on),
	 * else NULL. A pointer, so that pages.c stays below flash.c.
	 */
	bool (*reclaim)(struct ftlblk_dev *dev, unsigned long want);
	/* Bad sectors (badblocks.c): a configfs item's list, or bb_own. */
	struct badblocks *bb;

	/*
	 * ---- pool_lock: free data pages ----
	 * pool_lock protects pool[], pool_pages, limbo (and its carriers),
	 * limbo_pages, limbo_took and limbo_work_armed; it nests inside
	 * a shard's lock. A hold copies at most one request's or one lock
	 * hold's page pointers, or moves LIMBO_BATCH limbo pages (pages.c).
	 */
	spinlock_t pool_lock ____cacheline_aligned_in_smp;
	struct page **pool;		/* free data pages, stale contents */
	unsigned int pool_pages;
	unsigned int pool_max;		/* entries in pool[] */
	/*
	 * Released pages that readers may still copy from, reused once
	 * their RCU grace period has passed: limbo lists carriers (free
	 * data pages holding released pages' pointers and one grace-period
	 * cookie), oldest first; limbo_pages counts the released pages and
	 * the carriers (pages.c). limbo_took counts the pages writers took
	 * from it since limbo_work last ran, which frees the ripe pages
	 * beyond that (queued while limbo_work_armed). limbo_kicked is the
	 * last cookie a grace period was asked for (read and written
	 * without the lock: a lost update asks twice). limbo_rcu_pages
	 * (atomic, no lock) counts released pages that found no carrier and
	 * wait for call_rcu() to free them.
	 */
	struct list_head limbo;
	unsigned long limbo_pages;
	atomic_long_t limbo_rcu_pages;
	unsigned long limbo_took;
	bool limbo_work_armed;
	unsigned long limbo_kicked;
	/*
	 * With mem_limit_mib (mem_limit_pages != 0, frozen at power-on):
	 * data pages taken from the page allocator and not given back yet,
	 * whether mapped, pooled, in limbo or held by a request in flight
	 * (pages.c). Atomic, so that the limit costs a request one atomic
	 * add when it allocates and none when the pool serves it; not kept
	 * without a limit.
	 */
	atomic_long_t mem_pages;

	/*
	 * ---- timing_lock: the NAND timing model ----
	 * NAND timing (complete.c), with timing=1 (timing_on, frozen at
	 * power-on). timing_lock protects timing (the dies' and channels'
	 * busy times and the counters); it nests inside a shard's lock,
	 * because GC runs under it, and lock-free readers take it alone. Every call
	 * under it is O(1), except an erase: O(dies), at most 4096.
	 * timers_cut is set once, under timing_lock, when removal starts:
	 * from then requests complete without waiting for their modeled
	 * time (complete.c).
	 */
	spinlock_t timing_lock ____cacheline_aligned_in_smp;
	bool timers_cut;
	struct ftl_timing timing;

	/* ---- Cold: set up once or used rarely ---- */
	struct blk_mq_tag_set tag_set;
	/*
	 * Set under disk->open_mutex once removal has started; open() checks
	 * it under the same mutex, so no opener slips in between the -EBUSY
	 * check and del_gendisk().
	 */
	bool removing;
	struct work_struct ro_work;	/* marks the disk read-only */
	struct delayed_work limbo_work;	/* see limbo */
	/*
	 * With poll_queues: one per hardware queue (hctx->driver_data; the
	 * default queues' unused), else NULL.
	 */
	struct ftlblk_pollq *pollqs;
	/*
	 * power_mutex serializes cutting and restoring the power, and
	 * protects power_cuts (the cuts counted since the last reset_stats).
	 */
	struct mutex power_mutex;
	u64 power_cuts;
	unsigned int cut_mode;		/* power_cut_mode */
	struct badblocks bb_own;
	struct dentry *debugfs;		/* ftlblk/ftlblkN (debugfs.c) */
};

/* The shard holding device logical page @lpn, and its number there. */
static inline struct ftlblk_shard *ftlblk_shard(struct ftlblk_dev *dev,
						u64 lpn, u64 *local)
{
	return &dev->shards[ftl_shard_of(&dev->dealing, lpn, local)];
}

/* The memory holding the shard's logical page @lpn's data, or NULL. */
static inline struct page *ftlblk_data(const struct ftlblk_shard *sh, u64 lpn)
{
	u32 frame = sh->data[lpn];

	return frame ? pfn_to_page(frame - 1) : NULL;
}

/* Under sh->lock. */
static inline void ftlblk_set_data(struct ftlblk_shard *sh, u64 lpn,
				   struct page *page)
{
	/*
	 * Release: a reader without the lock (rw.c) that finds the frame
	 * also finds the data written into the page before it, and one
	 * that finds none the forward map as it was before.
	 */
	smp_store_release(&sh->data[lpn], page ? page_to_pfn(page) + 1 : 0);
}

/* A shard's physical page @ppn in the device's numbering. */
static inline u32 ftlblk_device_ppn(const struct ftlblk_shard *sh, u32 ppn)
{
	return ppn + sh->first_block * sh->dev->dealing.stripe;
}

/* Is the volatile write cache on (write_cache=1)? */
static inline bool ftlblk_cache_on(const struct ftlblk_dev *dev)
{
	return dev->cache_on;
}

/*
 * Can a power cut take @rq's effect away before it completes? With the
 * cache on: a write without FUA (its data is cached), a write-zeroes or
 * discard (cached, FUA or not), and a flush (the cut may drop what it was
 * to make durable, even before it started writing back).
 */
static inline bool ftlblk_rq_volatile(const struct ftlblk_dev *dev,
				      const struct request *rq)
{
	switch (req_op(rq)) {
	case REQ_OP_WRITE:
		return ftlblk_cache_on(dev) && !(rq->cmd_flags & REQ_FUA);
	case REQ_OP_WRITE_ZEROES:
	case REQ_OP_DISCARD:
	case REQ_OP_FLUSH:
		return ftlblk_cache_on(dev);
	default:
		return false;
	}
}

/* Is power cycle @a later than @b (cuts_seen values, which wrap)? */
static inline bool ftlblk_cycle_after(u32 a, u32 b)
{
	return (s32)(a - b) > 0;
}

/*
 * A flush sent in power cycle @gen failed. It vouched for every write
 * completed before it was sent, so its failure reports the losses of the
 * cuts up to @gen; not those of a cut it was in flight across, which may
 * have dropped a write completed after it was sent.
 */
static inline void ftlblk_flush_failed(struct ftlblk_dev *dev, u32 gen)
{
	int reported = atomic_read(&dev->reported_cycle);

	while (ftlblk_cycle_after(gen, reported) &&
	       !atomic_try_cmpxchg(&dev->reported_cycle, &reported, gen))
		;
}

/**
 * ftlblk_flush_status() - the status a flush completes with
 * @dev: device
 * @gen: the power cycle it was sent in (&ftlblk_cmd.gen)
 * @sts: its status so far (ftlblk_final_status() applied)
 *
 * A flush vouches for every write completed before it was sent. After a
 * power cut dropped cached updates that writes had completed with, the
 * first flush sent after the cut to end fails - one sent while the power
 * was off, else the first to end after the restore - so that the host
 * hears of the loss through the one channel the block layer has for it (a
 * real disk would report its reset: a SCSI unit attention, an NVMe
 * asynchronous event). A flush in flight across the cut fails too, but
 * does not count: it never vouched for writes completed after it was
 * sent. Several cuts before one flush fail one flush; a cut that dropped
 * nothing fails none.
 *
 * Return: @sts, or BLK_STS_IOERR.
 */
static inline blk_status_t ftlblk_flush_status(struct ftlblk_dev *dev,
					       u32 gen, blk_status_t sts)
{
	int reported;
	u32 lost;

	if (sts != BLK_STS_OK) {
		ftlblk_flush_failed(dev, gen);
		return sts;
	}
	/* The caller saw the power on: the cut that dropped is over. */
	smp_rmb();
	lost = READ_ONCE(dev->lost_cycle);
	reported = atomic_read(&dev->reported_cycle);
	do {
		if (!ftlblk_cycle_after(lost, reported))
			return sts;	/* nothing owed, or another flush paid it */
	} while (!atomic_try_cmpxchg(&dev->reported_cycle, &reported, lost));
	ftlblk_count(dev, FTLBLK_PC_FLUSHES_FAILED_AFTER_CUT, 1);
	return BLK_STS_IOERR;
}

/**
 * ftlblk_final_status() - the status @rq may complete with now
 * @dev: device
 * @rq: request about to complete
 * @sts: the status its work ended with
 *
 * A disconnected disk (power off) completes nothing successfully, and a
 * request in flight across a power cut must not report success for an
 * effect the cut dropped from the write cache: nothing acknowledged is
 * lost. A flush on the worker also checks it between its write-backs
 * (ftlblk_cache_flush()), so that it stops writing back at once; and the
 * first flush sent after a cut reports the acknowledged updates the cut
 * dropped (ftlblk_flush_status()).
 *
 * Return: @sts, or BLK_STS_IOERR.
 */
static inline blk_status_t ftlblk_final_status(struct ftlblk_dev *dev,
					       struct request *rq,
					       blk_status_t sts)
{
	const struct ftlblk_cmd *cmd = blk_mq_rq_to_pdu(rq);

	if (READ_ONCE(dev->power_off)) {
		sts = BLK_STS_IOERR;
	} else {
		/* Pairs with ftlblk_set_power()'s smp_wmb(): its cycle, then on. */
		smp_rmb();
		if (sts == BLK_STS_OK && READ_ONCE(dev->cuts_seen) != cmd->gen &&
		    ftlblk_rq_volatile(dev, rq))
			sts = BLK_STS_IOERR;
	}
	if (req_op(rq) == REQ_OP_FLUSH)
		sts = ftlblk_flush_status(dev, cmd->gen, sts);
	return sts;
}

/* Bytes in one flash page. */
static inline unsigned int ftlblk_page_bytes(const struct ftlblk_dev *dev)
{
	return dev->sectors_per_page << SECTOR_SHIFT;
}

/* config.c */
extern struct ftlblk_config ftlblk_defaults;
extern unsigned int ftlblk_default_cut_mode;
const char *ftlblk_field_value_name(enum ftlblk_field_id id,
				    unsigned int value);
int ftlblk_field_parse(enum ftlblk_field_id id, const char *text,
		       unsigned int *value);
int ftlblk_field_check(enum ftlblk_field_id id, unsigned int value,
		       const char *who);
int ftlblk_config_check(const struct ftlblk_config *cfg, const char *who);
void ftlblk_config_to_ftl(const struct ftlblk_config *cfg,
			  struct ftl_config *fcfg);
struct ftl_shards ftlblk_dealing(const struct ftlblk_config *cfg);
unsigned int ftlblk_atomic_bytes(const struct ftlblk_config *cfg);
int ftlblk_params_check(void);

/* device.c */
int ftlblk_create(const struct ftlblk_config *cfg, struct badblocks *bb,
		  unsigned int cut_mode, const char *who,
		  struct ftlblk_dev **devp);
int ftlblk_remove(struct ftlblk_dev *dev, bool force, unsigned int *cut_mode);
int ftlblk_devices_init(void);
void ftlblk_devices_exit(void);

/* queue.c */
extern const struct blk_mq_ops ftlblk_mq_ops;

/* rw.c */
blk_status_t ftlblk_rw(struct ftlblk_dev *dev, struct request *rq,
		       bool write, gfp_t gfp);

/* discard.c */
bool ftlblk_discard_is_quick(struct ftlblk_dev *dev, struct request *rq);
blk_status_t ftlblk_discard(struct ftlblk_dev *dev, struct request *rq);
blk_status_t ftlblk_write_zeroes(struct ftlblk_dev *dev, struct request *rq);

/*
 * Does write-zeroes @rq deallocate whole pages? Not with REQ_NOUNMAP, and
 * not with discard=0 (a drive without deallocate programs the zeroes).
 */
static inline bool ftlblk_zeroes_unmap(struct ftlblk_dev *dev,
				       struct request *rq)
{
	return !(rq->cmd_flags & REQ_NOUNMAP) && dev->cfg.val[FTLBLK_DISCARD];
}

/*
 * The placement class of write @rq: its hint or its stream (the block
 * layer merges only bios of one hint and one stream), 0 with placement
 * none. The FTL core refuses a class it was not made with.
 */
static inline u8 ftlblk_rq_class(struct ftlblk_dev *dev, struct request *rq)
{
	switch (dev->cfg.val[FTLBLK_PLACEMENT]) {
	case FTLBLK_PLACE_HINT:
		return min(ftlblk_rq_write_hint(rq), FTLBLK_HINT_CLASSES - 1);
	case FTLBLK_PLACE_STREAM:
		return min(ftlblk_rq_write_stream(rq),
			   dev->cfg.val[FTLBLK_WRITE_STREAMS]);
	default:
		return 0;
	}
}

blk_status_t ftlblk_zero_sectors(struct ftlblk_dev *dev, struct request *rq,
				 sector_t sector, u64 nr_sects);

/* secure_erase.c */
blk_status_t ftlblk_secure_erase(struct ftlblk_dev *dev, struct request *rq);

/* worker.c */
void ftlblk_queue_work(struct ftlblk_cmd *cmd);
void ftlblk_flush_work(void);
void ftlblk_init_cmd(struct ftlblk_cmd *cmd);
int ftlblk_worker_init(void);
void ftlblk_worker_exit(void);

/* store.c */
int ftlblk_store_page(struct ftlblk_shard *sh, u64 lpn, u8 cls,
		      struct page *page, struct ftl_timing_req *treq, bool fua);
int ftlblk_store_unmap(struct ftlblk_shard *sh, u64 lpn, u64 count,
		       bool discard, struct ftl_timing_req *treq);
bool ftlblk_store_replaces(struct ftlblk_shard *sh, u64 lpn, bool fua);
int ftlblk_store_atomic(struct ftlblk_shard *sh, u64 lpn, unsigned int n,
			u8 cls, struct page **pages,
			struct ftl_timing_req *treq, bool fua);
int ftlblk_writeback_oldest(struct ftlblk_shard *sh,
			    struct ftl_timing_req *treq);
unsigned int ftlblk_cut_oldest(struct ftlblk_shard *sh, bool keep,
			       struct ftl_timing_req *treq, u64 *lost);
void ftlblk_release_cached(struct ftlblk_shard *sh, u32 v);
struct page *ftlblk_cache_entry_page(u32 v);
bool ftlblk_cached_page(struct ftlblk_shard *sh, u64 lpn, struct page **pagep);
bool ftlblk_cached_page_unlocked(struct ftlblk_shard *sh, u64 lpn,
				 struct page **pagep);
void ftlblk_copy_page_locked(struct ftlblk_shard *sh, u64 lpn, void *buf,
			     unsigned int keep_off, unsigned int keep_len);
bool ftlblk_lpn_has_data(struct ftlblk_shard *sh, u64 lpn);

/* pages.c */
int ftlblk_pages_get(struct ftlblk_dev *dev, struct page **pages,
		     unsigned int n, gfp_t gfp, unsigned int over);
blk_status_t ftlblk_pages_status(struct ftlblk_dev *dev, int err);
void ftlblk_pages_put(struct ftlblk_dev *dev, struct page **pages,
		      unsigned int n);
void ftlblk_lock(struct ftlblk_shard *sh, struct ftlblk_released *rel)
	__acquires(&sh->lock);
void ftlblk_unlock(struct ftlblk_shard *sh) __releases(&sh->lock);
void ftlblk_release_page(struct ftlblk_shard *sh, struct page *page);
u64 ftlblk_pages_free_table(struct ftlblk_dev *dev, u32 *table, u64 n);
int ftlblk_pool_init(struct ftlblk_dev *dev);
void ftlblk_pool_free(struct ftlblk_dev *dev);
extern const struct ftl_ops ftlblk_ftl_ops;
extern const struct ftl_ops ftlblk_ftl_timed_ops;

/* stats.c */
void ftlblk_ftl_stats(struct ftlblk_dev *dev, struct ftl_stats *st,
		      struct ftl_geometry *geo);
void ftlblk_snapshot(struct ftlblk_dev *dev, struct ftlblk_snapshot *s);

/* badblocks.c */
int ftlblk_bb_init(struct badblocks *bb);
void ftlblk_bb_exit(struct badblocks *bb);
int ftlblk_bb_attach(struct ftlblk_dev *dev, struct badblocks *bb);
void ftlblk_bb_detach(struct ftlblk_dev *dev);
ssize_t ftlblk_bb_show(struct badblocks *bb, char *page);
ssize_t ftlblk_bb_store(struct badblocks *bb, const char *who,
			const char *buf, size_t count);
bool ftlblk_bad_sectors(struct ftlblk_dev *dev, struct request *rq);
extern struct device_attribute dev_attr_badblocks;

/* wearout.c */
void ftlblk_wearout_check(struct ftlblk_shard *sh);
void ftlblk_block_retired(void *ctx, u32 block, u32 erase_count);

/**
 * struct ftlblk_page_info - a physical page as the flash image shows it
 * @state: enum ftl_page_state
 * @lpn: the shard's logical page it holds (valid or stale), or
 *	FTL_UNMAPPED
 * @retired: its block is retired (bad)
 * @kept: stale, and its data kept (remanence=1)
 */
struct ftlblk_page_info {
	enum ftl_page_state state;
	u32 lpn;
	bool retired;
	bool kept;
};

/* flash.c */
void ftlblk_stale_keep(struct ftlblk_shard *sh, u32 ppn, struct page *page);
void ftlblk_stale_erased(struct ftlblk_shard *sh, u32 block);
void ftlblk_stale_retired(struct ftlblk_shard *sh, u32 block);
bool ftlblk_reclaim_stale(struct ftlblk_dev *dev, unsigned long want);
void ftlblk_flash_page(struct ftlblk_shard *sh, u32 ppn, void *buf,
		       struct ftlblk_page_info *info);

/* debugfs.c */
void ftlblk_debugfs_add(struct ftlblk_dev *dev);
void ftlblk_debugfs_remove(struct ftlblk_dev *dev);
void ftlblk_debugfs_init(void);
void ftlblk_debugfs_exit(void);

/* wearout.c */
void ftlblk_wearout_init(struct ftlblk_dev *dev);
void ftlblk_wearout_exit(struct ftlblk_dev *dev);

/* complete.c */
int ftlblk_timing_init(struct ftlblk_dev *dev);
void ftlblk_timing_exit(struct ftlblk_dev *dev);
void ftlblk_timing_init_cmd(struct ftlblk_cmd *cmd);
void ftlblk_timing_start(struct ftlblk_dev *dev, struct request *rq);
void ftlblk_timing_reads(struct ftlblk_dev *dev, struct ftl_timing_req *treq,
			 const u32 *ppns, unsigned int n);
void ftlblk_timing_program(struct ftlblk_dev *dev,
			   struct ftl_timing_req *treq, u32 ppn);
void ftlblk_timing_relocate(struct ftlblk_dev *dev,
			    struct ftl_timing_req *treq, u32 from, u32 to);
void ftlblk_timing_erase(struct ftlblk_dev *dev, struct ftl_timing_req *treq,
			 u32 block);
void ftlblk_end_request(struct ftlblk_dev *dev, struct request *rq,
			blk_status_t sts);
void ftlblk_timing_end_pending(struct ftlblk_dev *dev, bool cut);
enum blk_eh_timer_return ftlblk_timing_timeout(struct request *rq);
int ftlblk_poll(struct blk_mq_hw_ctx *hctx, struct io_comp_batch *iob);
void ftlblk_timing_stats(struct ftlblk_dev *dev, struct ftl_timing_stats *st);
void ftlblk_timing_reset_stats(struct ftlblk_dev *dev);

/* power.c */
bool ftlblk_cache_flush_needed(struct ftlblk_dev *dev);
blk_status_t ftlblk_cache_flush(struct ftlblk_dev *dev, struct request *rq);
int ftlblk_parse_switch(const char *text, bool *on);
int ftlblk_power_store(struct ftlblk_dev *dev, const char *who,
		       const char *buf);
int ftlblk_cut_mode_parse(const char *who, const char *buf);
const char *ftlblk_cut_mode_name(unsigned int mode);
int ftlblk_cache_init(struct ftlblk_dev *dev);
void ftlblk_cache_exit(struct ftlblk_dev *dev);

/* configfs.c */
int ftlblk_configfs_init(void);
void ftlblk_configfs_exit(void);

/* sysfs.c */
extern const struct attribute_group *ftlblk_disk_groups[];
void ftlblk_sysfs_init(void);

#endif /* FTLBLK_H */
