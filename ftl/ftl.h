/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftl.h - a portable page-mapped flash translation layer.
 *
 * The core models NAND flash as physical blocks of pages: a page can be
 * programmed once after its block was erased, and only whole blocks are
 * erased. It keeps the logical-to-physical map, decides where every write
 * goes, collects garbage, levels wear and consumes discards. It never
 * touches data bytes: a host that stores data keeps them (the ftlblk
 * module per logical page, the tests' shadow store per physical page) and
 * is told through struct ftl_ops when a page is released, moved or erased
 * (a host that keeps data per logical page needs no move callback).
 *
 * Units: the core works in whole flash pages. A logical page number (lpn)
 * addresses the host's view, a physical page number (ppn) is
 * block * pages_per_block + page-in-block. Partial pages are the caller's
 * concern (ftlblk read-modify-writes them).
 *
 * Concurrency: the core has no locks. Every call on one struct ftl must be
 * serialized by the caller, except ftl_lookup_unlocked(); the callbacks
 * run inside the call that caused them, under the caller's lock. No call
 * other than ftl_create() and ftl_destroy() allocates or frees core
 * memory, and none sleeps, so a caller may hold a spinlock around them.
 */
#ifndef FTL_H
#define FTL_H

#include "ftl_port.h"

/* Marks an unmapped logical page or a physical page without valid data. */
#define FTL_UNMAPPED		U32_MAX

/*
 * Spare blocks garbage collection needs to make progress: one open block
 * for host writes, one for relocations, one free block only GC may take,
 * and one more so that some closed block always holds an invalid page.
 */
#define FTL_MIN_SPARE_BLOCKS	4

#define FTL_MIN_PAGE_SIZE	4096
#define FTL_MAX_PAGE_SIZE	16384
#define FTL_MIN_PAGES_PER_BLOCK	2
#define FTL_MAX_PAGES_PER_BLOCK	4096
#define FTL_MIN_OP_PERCENT	1
#define FTL_MAX_OP_PERCENT	100

#define FTL_DEFAULT_PAGE_SIZE		4096
#define FTL_DEFAULT_PAGES_PER_BLOCK	256
#define FTL_DEFAULT_OP_PERCENT		7
/* Static wear leveling acts when max - min erase count exceeds this. */
#define FTL_DEFAULT_WL_THRESHOLD	64
#define FTL_DEFAULT_FAULT_SEED		1
/* 10 %: beyond that, failures would dominate and prove little more. */
#define FTL_MAX_FAIL_PPM		100000
#define FTL_MAX_ENDURANCE		100000000
/* Logical pages of one FTL: below 2^31 (the reverse map's stale bit). */
#define FTL_MAX_LOGICAL_PAGES		0x7fffffffULL
/*
 * Placement classes: host writes of each class fill their own open block
 * (a write lifetime hint, a write stream). 17: class 0 for writes without
 * one, and the 16 write streams an NVMe FDP device may offer Linux.
 */
#define FTL_MAX_CLASSES			17

/**
 * enum ftl_gc_policy - how garbage collection chooses a victim block
 * @FTL_GC_GREEDY: fewest valid pages (least copying now)
 * @FTL_GC_FIFO: the block closed longest ago (a circular log)
 * @FTL_GC_COST_BENEFIT: largest age * (1 - u) / (1 + u), u the valid
 *	fraction (Rosenblum & Ousterhout's LFS cleaner, Kawaguchi's flash FS)
 * @FTL_GC_NR_POLICIES: number of policies, not a policy
 */
enum ftl_gc_policy {
	FTL_GC_GREEDY,
	FTL_GC_FIFO,
	FTL_GC_COST_BENEFIT,
	FTL_GC_NR_POLICIES,
};

/**
 * enum ftl_read_only - why an FTL refuses changes
 * @FTL_WRITABLE: it does not
 * @FTL_READ_ONLY_WORN_OUT: retired blocks left fewer spare blocks than
 *	garbage collection needs (gc_high_blocks + 2): the end of life
 * @FTL_READ_ONLY_BROKEN: an internal invariant failed (a bug, reported
 *	with FTL_WARN_ON); continuing could corrupt mapped data
 */
enum ftl_read_only {
	FTL_WRITABLE,
	FTL_READ_ONLY_WORN_OUT,
	FTL_READ_ONLY_BROKEN,
};

/**
 * struct ftl_config - geometry and policy of one FTL instance
 * @page_size: flash page size in bytes, a power of two in
 *	[FTL_MIN_PAGE_SIZE, FTL_MAX_PAGE_SIZE]; the core only checks it
 * @pages_per_block: pages in an erase block
 * @logical_pages: pages the host can address
 * @op_percent: over-provisioning, spare capacity as a percentage of the
 *	logical capacity, [FTL_MIN_OP_PERCENT, FTL_MAX_OP_PERCENT]
 * @gc_policy: victim selection
 * @wl_threshold: static wear leveling relocates the coldest block when
 *	max - min erase count exceeds this; 0 turns static wear leveling off
 *	(dynamic wear leveling, lowest erase count first, is always on)
 * @gc_low_blocks: GC starts when free blocks fall below this; 0 = default
 * @gc_high_blocks: and stops when free blocks reach this; 0 = default
 * @program_fail_ppm: probability that a page program fails, per million,
 *	[0, FTL_MAX_FAIL_PPM]; the data goes to another page, the block is
 *	retired once its valid pages are relocated
 * @erase_fail_ppm: probability that a block erase fails, per million,
 *	[0, FTL_MAX_FAIL_PPM]; the block is retired
 * @fault_seed: seed of the fault generator: same seed, same failures
 * @endurance: erase count at which a block fails its next erase, 0 =
 *	unlimited, [0, FTL_MAX_ENDURANCE]
 * @remanence: the data store keeps a superseded page's data until its
 *	block is erased, as flash does (0 or 1): then ftl_stats.pages_stale
 *	counts those pages, else it is 0 (the store drops them at once)
 * @placement_classes: host write classes, [0, FTL_MAX_CLASSES]; each has
 *	its own open block for host writes (ftl_write_class()) and one for
 *	the relocations of its pages by GC, wear leveling and secure erase,
 *	so each class beyond the first needs two more spare blocks; 0 and 1
 *	both mean one class, the only one ftl_write() uses
 */
struct ftl_config {
	u32 page_size;
	u32 pages_per_block;
	u64 logical_pages;
	u32 op_percent;
	enum ftl_gc_policy gc_policy;
	u32 wl_threshold;
	u32 gc_low_blocks;
	u32 gc_high_blocks;
	u32 program_fail_ppm;
	u32 erase_fail_ppm;
	u64 fault_seed;
	u32 endurance;
	u32 remanence;
	u32 placement_classes;
};

/* Why the core reclaimed a block (struct ftl_ops.collected). */
enum ftl_collect_reason {
	FTL_COLLECT_GC,			/* garbage collection */
	FTL_COLLECT_WEAR_LEVELING,	/* static wear leveling */
	FTL_COLLECT_SECURE_ERASE,	/* ftl_secure_erase() */
};

/**
 * struct ftl_ops - how the core tells the data store what happened
 * @release: @ppn, which held @lpn's data, no longer holds valid data
 *	(overwritten, discarded, or the FTL is destroyed); free its storage.
 *	On an overwrite it is called inside ftl_write(), before the new
 *	page is returned; a store that keeps data by logical page (ftlblk)
 *	then drops @lpn's old copy and takes the new one after the call
 * @move: garbage collection or wear leveling relocated the valid page at
 *	@from to @to; hand the storage over (a pointer move is enough, the
 *	core counts the NAND program). Called in the middle of a run of
 *	relocations whose block counts are settled after it: it must not
 *	call into the FTL
 * @erased: @block was erased; its erase count is now @erase_count
 * @collected: @block was reclaimed after relocating @relocated pages, for
 *	@reason (enum ftl_collect_reason); called before the erase
 * @retired: @block left service for good (a program or erase failed, or
 *	it reached its endurance) at @erase_count erases
 * @read_oob: if set, the data store keeps each page's logical page number
 *	with its data, as NAND keeps it in the page's spare (out-of-band)
 *	area, and the core keeps no reverse map of its own (4 bytes less per
 *	physical page): return the lpn stored with @ppn, or FTL_UNMAPPED if
 *	@ppn was not programmed since its block's erase. The store records
 *	the lpn when it takes the page that ftl_write() returned and on
 *	@move (at @to), and keeps it after a @release, until @erased: a
 *	stale page's lpn is how ftl_secure_erase() finds old copies. A page
 *	counts as valid only while the forward map still points at it.
 *
 * Every member may be NULL (a metadata-only simulation sets none).
 */
struct ftl_ops {
	void (*release)(void *ctx, u64 lpn, u32 ppn);
	void (*move)(void *ctx, u32 from, u32 to);
	void (*erased)(void *ctx, u32 block, u32 erase_count);
	void (*collected)(void *ctx, u32 block, u32 relocated,
			  enum ftl_collect_reason reason);
	void (*retired)(void *ctx, u32 block, u32 erase_count);
	u32 (*read_oob)(void *ctx, u32 ppn);
};

/**
 * struct ftl_geometry - what ftl_create() derived from a configuration
 * @logical_pages: as configured
 * @pages_per_block: as configured
 * @logical_blocks: logical_pages / pages_per_block, rounded up
 * @spare_blocks: over-provisioned blocks
 * @physical_blocks: logical_blocks + spare_blocks
 * @physical_pages: physical_blocks * pages_per_block
 * @open_blocks: blocks open for writing: two per placement class, one
 *	for host writes and one for relocations
 * @gc_low_blocks: effective low watermark
 * @gc_high_blocks: effective high watermark
 */
struct ftl_geometry {
	u64 logical_pages;
	u32 pages_per_block;
	u32 logical_blocks;
	u32 spare_blocks;
	u32 physical_blocks;
	u64 physical_pages;
	u32 open_blocks;
	u32 gc_low_blocks;
	u32 gc_high_blocks;
};

/**
 * struct ftl_stats - counters, all in flash pages or events
 * @host_pages_written: pages programmed on behalf of host writes
 * @host_pages_read: pages read by the host (mapped or not)
 * @nand_pages_written: all page programs: host, GC and wear leveling
 * @gc_relocations: valid pages copied by garbage collection
 * @gc_runs: victim blocks reclaimed by garbage collection
 * @wl_relocations: valid pages copied by static wear leveling
 * @wl_runs: blocks reclaimed by static wear leveling
 * @erases: block erases
 * @secure_erases: ftl_secure_erase() calls
 * @secure_erase_blocks: blocks they erased because a page of the range
 *	(a current or a stale copy) was in them
 * @secure_erase_relocations: other valid pages they copied out first
 * @secure_erase_pages_left: pages with data of their ranges they left,
 *	on blocks that could not be erased (retired: bad)
 * @discard_calls: ftl_discard() calls
 * @pages_discarded: logical pages covered by discards
 * @valid_pages_discarded: of those, pages that held data and were unmapped
 * @unmapped_reads: reads of pages never written or discarded
 * @program_failures: page programs that failed (host and relocation)
 * @atomic_writes: ftl_write_atomic() calls that mapped their pages
 * @atomic_pages_abandoned: pages an atomic write programmed and then left
 *	unmapped, because a later page of it failed to program (it starts
 *	again in another block); counted in @nand_pages_written
 * @erase_failures: erases that failed or found the block worn out
 * @valid_pages: logical pages currently mapped (state, not reset)
 * @pages_stale: with remanence, physical pages whose data no logical page
 *	maps any more (overwritten, discarded, relocated) and that no erase
 *	removed yet, retired blocks' included; 0 without (state)
 * @free_blocks: blocks in the free pool (state)
 * @bad_blocks: blocks retired (state)
 * @spare_blocks: spare blocks still in service: the configured spare
 *	blocks minus the bad ones (state)
 * @read_only: enum ftl_read_only (state)
 * @erase_min: lowest erase count of any block in service (state)
 * @erase_max: highest erase count of any block (state)
 * @erase_mean_milli: mean erase count times 1000 (state)
 * @waf_milli: nand_pages_written * 1000 / host_pages_written, 0 before
 *	the first host write
 *
 * ftl_reset_stats() zeroes the counters; the fields marked state describe
 * the device and are never reset.
 */
struct ftl_stats {
	u64 host_pages_written;
	u64 host_pages_read;
	u64 nand_pages_written;
	u64 gc_relocations;
	u64 gc_runs;
	u64 wl_relocations;
	u64 wl_runs;
	u64 erases;
	u64 secure_erases;
	u64 secure_erase_blocks;
	u64 secure_erase_relocations;
	u64 secure_erase_pages_left;
	u64 discard_calls;
	u64 pages_discarded;
	u64 valid_pages_discarded;
	u64 unmapped_reads;
	u64 program_failures;
	u64 atomic_writes;
	u64 atomic_pages_abandoned;
	u64 erase_failures;
	u64 valid_pages;
	u64 pages_stale;
	u64 free_blocks;
	u64 bad_blocks;
	u64 spare_blocks;
	u64 read_only;
	u64 erase_min;
	u64 erase_max;
	u64 erase_mean_milli;
	u64 waf_milli;
};

struct ftl;

/**
 * ftl_config_init() - fill a configuration with the defaults
 * @cfg: configuration to fill
 * @logical_pages: host-visible capacity in pages
 */
void ftl_config_init(struct ftl_config *cfg, u64 logical_pages);

/**
 * ftl_config_check() - validate a configuration without allocating
 * @cfg: configuration to check
 * @geo: if not NULL, receives the derived geometry
 * @why: if not NULL, receives a static sentence saying what is wrong
 *
 * Return: 0, or -EINVAL when the configuration cannot work (a value out
 * of range, too few spare blocks for GC, a map too large for 32-bit
 * physical page numbers).
 */
int ftl_config_check(const struct ftl_config *cfg, struct ftl_geometry *geo,
		     const char **why);

/**
 * ftl_create() - allocate an FTL with every page unmapped and every block
 * erased once (erase counts start at 0)
 * @cfg: configuration; checked with ftl_config_check()
 * @ops: data store callbacks, or NULL; must outlive the FTL
 * @ctx: passed to every callback
 * @err: receives -EINVAL (and an ftl_err() line saying why) or -ENOMEM
 *
 * Return: the FTL, or NULL with *@err set.
 */
struct ftl *ftl_create(const struct ftl_config *cfg, const struct ftl_ops *ops,
		       void *ctx, int *err);

/**
 * ftl_destroy() - release every valid page through @ops and free the FTL
 * @ftl: FTL to free, or NULL
 */
void ftl_destroy(struct ftl *ftl);

/**
 * ftl_write() - map a logical page to a freshly programmed physical page
 * @ftl: the FTL
 * @lpn: logical page written
 * @ppn: receives the physical page the caller must now hold the data of
 *
 * Garbage collection runs first if the free pool is low (relocations and
 * erases reach @ops), then the previous physical page of @lpn, if any, is
 * released. On error no mapping changed: @lpn still reads its old data
 * (GC may have moved it, and may have closed the open block).
 *
 * Return: 0, -ERANGE if @lpn is beyond the logical capacity, -ENOSPC if
 * -EROFS if the FTL is read-only (ftl_read_only()), possibly since this
 * call, -ENOSPC if GC could not free a block (impossible for a checked
 * geometry; reported as an invariant failure too, and the FTL turns
 * read-only). A program failure is not an error: the page is programmed
 * elsewhere.
 */
int ftl_write(struct ftl *ftl, u64 lpn, u32 *ppn);

/**
 * ftl_write_class() - ftl_write() into the open block of a placement class
 * @ftl: the FTL
 * @lpn: logical page written
 * @cls: placement class, below the configured placement_classes (class 0
 *	with 0 or 1 configured)
 * @ppn: as for ftl_write()
 *
 * Data of one class shares erase blocks only with data of that class, so
 * pages that die together are erased together (the multi-streamed SSD,
 * NVMe Flexible Data Placement).
 *
 * Return: as ftl_write(); -EINVAL if @cls is not a configured class.
 */
int ftl_write_class(struct ftl *ftl, u64 lpn, u32 cls, u32 *ppn);

/**
 * ftl_write_atomic() - write logical pages together: all of them or none
 * @ftl: the FTL
 * @lpn: first logical page
 * @n: pages, [1, pages_per_block]
 * @cls: placement class, as for ftl_write_class()
 * @ppns: receives the @n physical pages the caller must now hold the data of
 *
 * The pages are programmed first and mapped only when every program has
 * succeeded, so the map - what survives a power cut - holds the old copy
 * of every page or the new copy of every page. GC and wear leveling run
 * only before the first program, as they would for a plain write, and
 * reserve what the pages need: the open block's room and, when that is
 * short, the next block. A program failure leaves the pages programmed so
 * far unmapped (ftl_stats.atomic_pages_abandoned) and starts again.
 *
 * Return: 0 with all pages mapped, or an error with none changed: those of
 * ftl_write_class(), -ERANGE for a range past the logical capacity, -EINVAL
 * for @n out of range.
 */
int ftl_write_atomic(struct ftl *ftl, u64 lpn, u32 n, u32 cls, u32 *ppns);

/**
 * struct ftl_class_stats - what one placement class wrote
 * @pages_written: host pages programmed for it
 * @blocks_filled: erase blocks its writes filled to the last page
 */
struct ftl_class_stats {
	u64 pages_written;
	u64 blocks_filled;
};

/**
 * ftl_get_class_stats() - the counters of placement class @cls
 * @ftl: the FTL
 * @cls: class, below FTL_MAX_CLASSES (unconfigured ones read zero)
 * @out: filled in; counted since creation or ftl_reset_stats()
 */
void ftl_get_class_stats(const struct ftl *ftl, u32 cls,
			 struct ftl_class_stats *out);

/**
 * ftl_prefetch_write() - start loading what a write of @lpn will touch
 * @ftl: the FTL
 * @lpn: logical page; nothing for one past the logical capacity
 * @deep: also the reverse-map entry and the block of @lpn's current copy,
 *	which reads @lpn's map entry: for a second call, after a first one
 *	without @deep has had time to bring that entry in
 *
 * A hint for a caller that knows its next writes some way ahead (ftlsim's
 * synthetic workloads): a write's first two memory accesses depend on
 * each other and on the write before, so without it each one waits. It
 * changes nothing; the write reads the map again.
 */
void ftl_prefetch_write(const struct ftl *ftl, u64 lpn, bool deep);

/**
 * ftl_read() - look a logical page up
 * @ftl: the FTL
 * @lpn: logical page read
 * @ppn: receives its physical page, or FTL_UNMAPPED if the page was never
 *	written or was discarded (the caller returns zeroes)
 *
 * Return: 0 or -ERANGE.
 */
int ftl_read(struct ftl *ftl, u64 lpn, u32 *ppn);

/**
 * ftl_discard() - the host no longer needs whole logical pages
 * @ftl: the FTL
 * @lpn: first page
 * @count: number of pages, 0 allowed
 *
 * Every mapped page in the range is unmapped at once: its physical page is
 * released and its block's valid count drops, so GC will never copy it.
 * Pages never written are counted as discarded and otherwise ignored.
 *
 * Return: number of pages that held data, or -ERANGE if the range does
 * not fit the logical capacity, -EROFS if the FTL is read-only (nothing
 * changed then).
 */
s64 ftl_discard(struct ftl *ftl, u64 lpn, u64 count);

/**
 * ftl_unmap() - like ftl_discard() but not counted as a discard
 * @ftl: the FTL
 * @lpn: first page
 * @count: number of pages
 *
 * For write-zeroes and for partial discards that left a page all zero.
 *
 * Return: as ftl_discard().
 */
s64 ftl_unmap(struct ftl *ftl, u64 lpn, u64 count);

/**
 * struct ftl_sanitize - what one ftl_secure_erase() did
 * @blocks_erased: blocks erased because a page of the range, a current or
 *	a stale copy, was in them
 * @pages_relocated: valid pages of other logical pages copied out of
 *	them first
 * @pages_left: pages with data of the range on blocks that could not be
 *	erased (retired before, or whose erase failed now): the data stays
 */
struct ftl_sanitize {
	u64 blocks_erased;
	u64 pages_relocated;
	u64 pages_left;
};

/**
 * ftl_secure_erase() - remove every copy of a logical range from the flash
 * @ftl: the FTL
 * @lpn: first page
 * @count: number of pages, 0 allowed
 * @res: if not NULL, receives what was done
 *
 * The range is unmapped as by ftl_unmap(), then, as flash must (only an
 * erase removes data), every block that holds a stale page of the range -
 * its copies until now, and every older one a write, discard or
 * relocation left - has its other valid pages relocated and is erased (a
 * valid page of the range is newer than the call: it stays); open blocks are
 * closed first. A block that cannot be erased (retired, or its erase
 * fails now) keeps its data: counted in @res->pages_left and
 * secure_erase_pages_left, never claimed erased. O(physical pages) to
 * find the blocks, plus their relocations and erases; it may run GC to
 * keep free blocks for the relocations.
 *
 * Return: number of pages of the range that held data, -ERANGE if the
 * range does not fit the logical capacity, -EROFS if the FTL is (or
 * turned) read-only, or another error of the relocations.
 */
s64 ftl_secure_erase(struct ftl *ftl, u64 lpn, u64 count,
		     struct ftl_sanitize *res);

/**
 * ftl_secure_erase_blocks() - the erase half of ftl_secure_erase(), over
 * some of the blocks
 * @ftl: the FTL
 * @lpn: first page of the range, already unmapped by the caller
 * @count: number of pages
 * @first_block: first block to look at
 * @nr_blocks: how many, clipped to the physical blocks
 * @res: adds what was done to *@res (not NULL)
 *
 * Lets a caller that holds a lock around every call bound each hold:
 * ftl_unmap() the range, then call this over successive windows of
 * blocks. Relocations go to blocks opened from the free pool, so a window
 * never gives a later one a copy of the range. Counts one secure erase
 * when it reaches the last block.
 *
 * Return: 0, -EROFS or another error of the relocations.
 */
int ftl_secure_erase_blocks(struct ftl *ftl, u64 lpn, u64 count,
			    u32 first_block, u32 nr_blocks,
			    struct ftl_sanitize *res);

/**
 * ftl_reclaim_stale() - erase the closed block with the most stale pages
 * @ftl: the FTL
 *
 * For a data store that keeps stale data (remanence) and runs short of
 * memory for it: only an erase gives it back, as only an erase removes it
 * from flash. The block's valid pages are relocated first (counted as
 * garbage collection). May run garbage collection first to keep free
 * blocks for them.
 *
 * Return: stale pages the call's erases removed, less those its
 * relocations left on a block whose erase failed (0 if no closed block
 * holds a stale page), or -EROFS, -ENOSPC.
 */
s64 ftl_reclaim_stale(struct ftl *ftl);

/**
 * enum ftl_page_state - what a physical page holds
 * @FTL_PAGE_ERASED: nothing since its block's erase (reads as all ones)
 * @FTL_PAGE_VALID: the current copy of its logical page
 * @FTL_PAGE_STALE: a superseded copy: the data is in the page until the
 *	block is erased (the store may have dropped it: remanence)
 * @FTL_PAGE_FAILED: skipped after a failed program: no data
 */
enum ftl_page_state {
	FTL_PAGE_ERASED,
	FTL_PAGE_VALID,
	FTL_PAGE_STALE,
	FTL_PAGE_FAILED,
};

/**
 * ftl_page_state() - a physical page's state, as its spare area tells it
 * @ftl: the FTL
 * @ppn: physical page, below the physical capacity
 * @lpn: receives the logical page it holds (valid or stale), else
 *	FTL_UNMAPPED
 * @retired: receives whether its block is retired (bad)
 *
 * Return: enum ftl_page_state.
 */
enum ftl_page_state ftl_page_state(const struct ftl *ftl, u32 ppn, u32 *lpn,
				   bool *retired);

/**
 * ftl_lookup() - map a logical page without counting a read
 * @ftl: the FTL
 * @lpn: logical page, must be below the logical capacity
 *
 * Return: the physical page or FTL_UNMAPPED.
 */
u32 ftl_lookup(const struct ftl *ftl, u64 lpn);

/**
 * ftl_lookup_unlocked() - ftl_lookup() that may race with any other call
 * @ftl: the FTL
 * @lpn: logical page; FTL_UNMAPPED beyond the capacity
 *
 * The one call that needs no serialization: it returns a mapping @lpn
 * had at some moment during the call (entries are written whole). A host
 * that reads without its lock pins what it found and calls it again to
 * see that nothing moved meanwhile; counts nothing.
 *
 * Return: the physical page or FTL_UNMAPPED.
 */
u32 ftl_lookup_unlocked(const struct ftl *ftl, u64 lpn);

/**
 * ftl_get_stats() - snapshot the counters and derived values
 * @ftl: the FTL
 * @stats: filled in (O(1))
 */
void ftl_get_stats(const struct ftl *ftl, struct ftl_stats *stats);

/**
 * ftl_reset_stats() - zero the event counters (not the device state)
 * @ftl: the FTL
 */
void ftl_reset_stats(struct ftl *ftl);

/**
 * ftl_get_geometry() - the derived geometry
 * @ftl: the FTL
 * @geo: filled in
 */
void ftl_get_geometry(const struct ftl *ftl, struct ftl_geometry *geo);

/**
 * ftl_block_erase_count() - one block's erase count
 * @ftl: the FTL
 * @block: block number below physical_blocks
 *
 * Return: the erase count.
 */
u32 ftl_block_erase_count(const struct ftl *ftl, u32 block);

/**
 * ftl_read_only() - whether, and why, the FTL refuses changes
 * @ftl: the FTL
 *
 * Once read-only, ftl_write(), ftl_discard() and ftl_unmap() fail with
 * -EROFS and every mapped page keeps reading its data; nothing turns it
 * back (a worn-out SSD does not heal).
 *
 * Return: FTL_WRITABLE or the reason.
 */
enum ftl_read_only ftl_read_only(const struct ftl *ftl);

/**
 * ftl_metadata_bytes() - memory the core allocated for its maps
 * @ftl: the FTL
 *
 * Return: bytes.
 */
u64 ftl_metadata_bytes(const struct ftl *ftl);

/**
 * ftl_check() - verify every internal invariant (O(physical pages))
 * @ftl: the FTL
 *
 * Checks that the forward and reverse maps agree, no physical page is
 * mapped twice, each block's valid count equals its mapped pages, the free
 * pool holds exactly the free blocks (all erased, none valid), the victim
 * lists and the wear heap hold exactly the closed (and failing) blocks,
 * buckets are in age order, bad blocks hold nothing, and the counters add
 * up. In check.c, which only user-space builds compile.
 *
 * Return: 0, or -EIO after an ftl_err() line naming the first violation.
 */
int ftl_check(const struct ftl *ftl);

/**
 * ftl_policy_name() - "greedy", "fifo" or "cost-benefit"
 * @policy: the policy
 *
 * Return: its name, or NULL for an unknown policy.
 */
const char *ftl_policy_name(enum ftl_gc_policy policy);

/**
 * ftl_policy_parse() - the policy named @name
 * @name: "greedy", "fifo" or "cost-benefit" (a trailing newline is allowed)
 *
 * Return: the policy, or -EINVAL.
 */
int ftl_policy_parse(const char *name);

#endif /* FTL_H */
