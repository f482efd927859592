// SPDX-License-Identifier: GPL-2.0
/*
 * cache.c - the volatile write cache's index: see cache.h.
 */
#include "cache.h"

int ftl_cache_init(struct ftl_cache *c, u64 nr_lpns, u64 capacity)
{
	c->slot = NULL;
	c->ring = NULL;
	c->head = 0;
	c->tail = 0;
	c->entries = 0;
	if (!nr_lpns || nr_lpns > U32_MAX)
		return -EINVAL;
	if (!capacity || capacity > nr_lpns)
		capacity = nr_lpns;
	c->nr_lpns = nr_lpns;
	c->capacity = capacity;
	c->slot = ftl_zalloc(nr_lpns * sizeof(*c->slot));
	c->ring = ftl_zalloc(capacity * sizeof(*c->ring));
	if (!c->slot || !c->ring) {
		ftl_cache_free(c);
		return -ENOMEM;
	}
	return 0;
}

void ftl_cache_free(struct ftl_cache *c)
{
	ftl_free(c->slot);
	ftl_free(c->ring);
	c->slot = NULL;
	c->ring = NULL;
	c->entries = 0;
}

u32 ftl_cache_store(struct ftl_cache *c, u64 lpn, u32 v)
{
	u32 old;

	if (FTL_WARN_ON(v == FTL_CACHE_NONE || lpn >= c->nr_lpns))
		return FTL_CACHE_NONE;
	old = c->slot[lpn];
	if (old == FTL_CACHE_NONE) {
		/* The host writes back before it stores into a full cache. */
		if (FTL_WARN_ON(ftl_cache_full(c)))
			return FTL_CACHE_NONE;
		c->ring[c->tail % c->capacity] = lpn;
		c->tail++;
		c->entries++;
	}
	FTL_STORE_RELEASE(c->slot[lpn], v);
	return old;
}

u32 ftl_cache_remove(struct ftl_cache *c, u64 lpn)
{
	u32 old;

	if (FTL_WARN_ON(lpn >= c->nr_lpns))
		return FTL_CACHE_NONE;
	old = c->slot[lpn];
	if (old != FTL_CACHE_NONE) {
		FTL_STORE_RELEASE(c->slot[lpn], FTL_CACHE_NONE);
		c->entries--;
	}
	return old;
}

/*
 * A ring slot whose page is no longer cached was left by
 * ftl_cache_remove(); one whose page is cached again holds an older
 * position than the entry's own, which is harmless: the entry is written
 * back early, and its own slot is stale by then.
 */
u32 ftl_cache_oldest(struct ftl_cache *c, u64 *lpn)
{
	u32 skipped;

	for (skipped = 0; c->head != c->tail && skipped < FTL_CACHE_SKIP_MAX;
	     skipped++) {
		u32 at = c->ring[c->head % c->capacity];

		if (c->slot[at] != FTL_CACHE_NONE) {
			*lpn = at;
			return c->slot[at];
		}
		c->head++;
	}
	return FTL_CACHE_NONE;
}

void ftl_cache_pop(struct ftl_cache *c)
{
	u64 lpn;

	if (FTL_WARN_ON(ftl_cache_oldest(c, &lpn) == FTL_CACHE_NONE))
		return;
	FTL_STORE_RELEASE(c->slot[lpn], FTL_CACHE_NONE);
	c->entries--;
	c->head++;
}
