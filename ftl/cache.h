/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cache.h - a volatile write cache above the FTL: which logical pages hold
 * updates that are acknowledged but not yet durable, and in which order
 * they are written back.
 *
 * The cache holds at most one entry per logical page: the page's latest
 * update, either a data handle (the host's page of data, 1..
 * FTL_CACHE_MAX_HANDLE, an opaque number the host chooses) or a pending
 * deallocation (FTL_CACHE_DISCARD, FTL_CACHE_UNMAP). A later update of a
 * cached page replaces its entry in place: the overwritten version never
 * reaches flash (a real cache coalesces the same way), and the entry keeps
 * its place in the write-back order.
 *
 * Write-back order: entries are written back oldest first (the order in
 * which their logical page entered the cache), by the host: it takes
 * ftl_cache_oldest(), applies it to the FTL, then ftl_cache_pop(). The
 * ring of logical pages in insertion order has one slot per cache page
 * (capacity); an entry removed out of order (ftl_cache_remove(), for a FUA
 * write) leaves its ring slot behind as stale, skipped when it reaches the
 * head. A call steps past at most FTL_CACHE_SKIP_MAX stale slots, so that
 * none runs long under the host's lock however many FUA writes came: a
 * full ring of them is passed in many calls (each frees that many ring
 * slots), and every call is O(1) amortized.
 *
 * Flush: everything that entered the cache before ftl_cache_mark() has
 * been written back once ftl_cache_passed(mark) is true - whatever entered
 * later, and whatever was written back early.
 *
 * Concurrency: the host serializes every call but ftl_cache_peek() (its
 * lock); ftl_cache_peek() may run without it. An entry is published with a
 * release store and cleared with one, so a reader that finds a handle
 * also finds the data written before ftl_cache_store(), and a reader that
 * finds no entry after a write-back also finds what the host applied to
 * the FTL before ftl_cache_pop(). Only ftl_cache_init() allocates.
 */
#ifndef FTL_CACHE_H
#define FTL_CACHE_H

#include "ftl_port.h"

/* What a logical page's cache slot holds besides a data handle. */
#define FTL_CACHE_NONE		0U		/* not cached */
#define FTL_CACHE_DISCARD	0xffffffffU	/* a pending discard */
#define FTL_CACHE_UNMAP		0xfffffffeU	/* pending write-zeroes unmap */
#define FTL_CACHE_MAX_HANDLE	0xfffffffdU

/* Stale ring slots ftl_cache_oldest() steps past in one call, at most. */
#define FTL_CACHE_SKIP_MAX	64U

/**
 * struct ftl_cache - the cache's index (the host keeps the data)
 * @slot: per logical page: FTL_CACHE_NONE, a handle or a pending
 *	deallocation
 * @ring: logical pages in the order they entered the cache
 * @capacity: entries in @ring: the most pages the cache holds
 * @nr_lpns: entries in @slot
 * @head: ring position of the oldest entry (counts up forever; the ring
 *	index is position % capacity)
 * @tail: ring position the next entry takes
 * @entries: slots that are not FTL_CACHE_NONE
 */
struct ftl_cache {
	u32 *slot;
	u32 *ring;
	u32 capacity;
	u64 nr_lpns;
	u64 head;
	u64 tail;
	u64 entries;
};

/**
 * ftl_cache_is_handle() - does a slot value hold data?
 * @v: slot value
 *
 * Return: true for a data handle.
 */
static inline bool ftl_cache_is_handle(u32 v)
{
	return v != FTL_CACHE_NONE && v <= FTL_CACHE_MAX_HANDLE;
}

/**
 * ftl_cache_peek() - what the cache holds for @lpn, without the host's lock
 * @c: cache
 * @lpn: logical page, below nr_lpns
 *
 * Return: the slot value (an acquire load).
 */
static inline u32 ftl_cache_peek(const struct ftl_cache *c, u64 lpn)
{
	return FTL_LOAD_ACQUIRE(c->slot[lpn]);
}

/**
 * ftl_cache_full() - must an entry be written back before a new one?
 * @c: cache
 *
 * Return: true if the ring has no free slot.
 */
static inline bool ftl_cache_full(const struct ftl_cache *c)
{
	return c->tail - c->head >= c->capacity;
}

/**
 * ftl_cache_init() - an empty cache
 * @c: cache
 * @nr_lpns: logical pages of the device, 1..U32_MAX
 * @capacity: pages the cache holds, 0 = @nr_lpns; larger is cut to
 *	@nr_lpns (more could never be used)
 *
 * Return: 0, -EINVAL for a bad size, -ENOMEM.
 */
int ftl_cache_init(struct ftl_cache *c, u64 nr_lpns, u64 capacity);

/**
 * ftl_cache_free() - free the index (the host frees the data first)
 * @c: cache, may be zeroed or freed already
 */
void ftl_cache_free(struct ftl_cache *c);

/**
 * ftl_cache_store() - make @v the cached update of @lpn
 * @c: cache; if @lpn is not cached, !ftl_cache_full()
 * @lpn: logical page
 * @v: a handle, FTL_CACHE_DISCARD or FTL_CACHE_UNMAP
 *
 * Return: the value @v replaces (FTL_CACHE_NONE if @lpn was not cached);
 * a handle returned is the host's to free.
 */
u32 ftl_cache_store(struct ftl_cache *c, u64 lpn, u32 v);

/**
 * ftl_cache_remove() - drop @lpn's entry out of order
 * @c: cache
 * @lpn: logical page
 *
 * Return: the value removed, FTL_CACHE_NONE if none.
 */
u32 ftl_cache_remove(struct ftl_cache *c, u64 lpn);

/**
 * ftl_cache_oldest() - the entry to write back next
 * @c: cache
 * @lpn: receives its logical page
 *
 * Steps past up to FTL_CACHE_SKIP_MAX stale ring slots at the head.
 *
 * Return: its value; FTL_CACHE_NONE if the cache is empty, or if this
 * call stepped past FTL_CACHE_SKIP_MAX stale slots without reaching it
 * (the ring has that many free slots more: call again for the entry).
 */
u32 ftl_cache_oldest(struct ftl_cache *c, u64 *lpn);

/**
 * ftl_cache_pop() - the oldest entry (ftl_cache_oldest()) is written back
 * or lost: drop it
 * @c: cache, right after ftl_cache_oldest() returned that entry
 */
void ftl_cache_pop(struct ftl_cache *c);

/**
 * ftl_cache_mark() - a flush starts here
 * @c: cache
 *
 * Return: the mark to pass to ftl_cache_passed().
 */
static inline u64 ftl_cache_mark(const struct ftl_cache *c)
{
	return c->tail;
}

/**
 * ftl_cache_passed() - is everything cached before @mark written back?
 * @c: cache
 * @mark: from ftl_cache_mark()
 *
 * Return: true if the flush that took @mark has nothing left to do.
 */
static inline bool ftl_cache_passed(const struct ftl_cache *c, u64 mark)
{
	return c->head >= mark || !c->entries;
}

/**
 * ftl_cache_metadata_bytes() - memory of the index
 * @c: cache
 *
 * Return: bytes of @slot and @ring.
 */
static inline u64 ftl_cache_metadata_bytes(const struct ftl_cache *c)
{
	return (c->nr_lpns + c->capacity) * sizeof(u32);
}

#endif /* FTL_CACHE_H */
