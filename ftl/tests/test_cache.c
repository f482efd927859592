// SPDX-License-Identifier: GPL-2.0
/*
 * test_cache.c - the write cache's index (cache.h): what it returns for
 * each logical page, the write-back order, flush marks and capacity, by
 * hand-worked cases and against a model under random operations.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cache.h"

static void test_init_sizes(void **state)
{
	struct ftl_cache c;

	(void)state;
	assert_int_equal(ftl_cache_init(&c, 0, 0), -EINVAL);
	assert_int_equal(ftl_cache_init(&c, (u64)U32_MAX + 1, 0), -EINVAL);
	assert_int_equal(ftl_cache_init(&c, 100, 0), 0);
	assert_int_equal(c.capacity, 100);
	assert_int_equal(ftl_cache_metadata_bytes(&c), 800);
	ftl_cache_free(&c);
	assert_int_equal(ftl_cache_init(&c, 100, 1000), 0);
	assert_int_equal(c.capacity, 100);
	ftl_cache_free(&c);
	assert_int_equal(ftl_cache_init(&c, 100, 7), 0);
	assert_int_equal(c.capacity, 7);
	ftl_cache_free(&c);
	ftl_cache_free(&c);	/* twice is allowed */
}

static void test_init_enomem(void **state)
{
	struct ftl_cache c;

	(void)state;
	ftl_port_fail_alloc_in = 1;
	assert_int_equal(ftl_cache_init(&c, 100, 10), -ENOMEM);
	ftl_port_fail_alloc_in = 2;
	assert_int_equal(ftl_cache_init(&c, 100, 10), -ENOMEM);
	ftl_port_fail_alloc_in = 0;
}

/* Store, overwrite, deallocate: the slot holds the latest update. */
static void test_store_replaces(void **state)
{
	struct ftl_cache c;
	u64 lpn;

	(void)state;
	assert_int_equal(ftl_cache_init(&c, 16, 4), 0);
	assert_int_equal(ftl_cache_peek(&c, 3), FTL_CACHE_NONE);
	assert_int_equal(ftl_cache_store(&c, 3, 11), FTL_CACHE_NONE);
	assert_int_equal(ftl_cache_store(&c, 3, 12), 11);
	assert_int_equal(ftl_cache_store(&c, 3, FTL_CACHE_DISCARD), 12);
	assert_int_equal(ftl_cache_peek(&c, 3), FTL_CACHE_DISCARD);
	assert_int_equal(ftl_cache_store(&c, 3, 13), FTL_CACHE_DISCARD);
	/* One entry and one ring slot however often the page changed. */
	assert_int_equal(c.entries, 1);
	assert_int_equal(c.tail - c.head, 1);
	assert_int_equal(ftl_cache_oldest(&c, &lpn), 13);
	assert_int_equal(lpn, 3);
	assert_true(ftl_cache_is_handle(13));
	assert_true(ftl_cache_is_handle(FTL_CACHE_MAX_HANDLE));
	assert_false(ftl_cache_is_handle(FTL_CACHE_NONE));
	assert_false(ftl_cache_is_handle(FTL_CACHE_DISCARD));
	assert_false(ftl_cache_is_handle(FTL_CACHE_UNMAP));
	ftl_cache_free(&c);
}

/*
 * Pages 5, 2, 9 enter in that order; 2 is overwritten (keeps its place),
 * 9 is removed by a FUA write and cached again after 7. Write-back order
 * 5, 2, 9, 7: 9 goes at the place its first residency left in the ring,
 * early, which a cache may do (nothing promises an order among pages not
 * flushed yet).
 */
static void test_writeback_order(void **state)
{
	static const u64 want_lpn[] = { 5, 2, 9, 7 };
	static const u32 want_val[] = { 50, 21, 91, 70 };
	struct ftl_cache c;
	unsigned int i;
	u64 lpn;

	(void)state;
	assert_int_equal(ftl_cache_init(&c, 16, 8), 0);
	ftl_cache_store(&c, 5, 50);
	ftl_cache_store(&c, 2, 20);
	ftl_cache_store(&c, 9, 90);
	ftl_cache_store(&c, 2, 21);
	assert_int_equal(ftl_cache_remove(&c, 9), 90);
	assert_int_equal(ftl_cache_remove(&c, 9), FTL_CACHE_NONE);
	assert_int_equal(ftl_cache_peek(&c, 9), FTL_CACHE_NONE);
	ftl_cache_store(&c, 7, 70);
	ftl_cache_store(&c, 9, 91);
	assert_int_equal(c.entries, 4);
	for (i = 0; i < 4; i++) {
		assert_int_equal(ftl_cache_oldest(&c, &lpn), want_val[i]);
		assert_int_equal(lpn, want_lpn[i]);
		ftl_cache_pop(&c);
		assert_int_equal(ftl_cache_peek(&c, lpn), FTL_CACHE_NONE);
	}
	assert_int_equal(c.entries, 0);
	assert_int_equal(ftl_cache_oldest(&c, &lpn), FTL_CACHE_NONE);
	assert_int_equal(c.head, c.tail);
	ftl_cache_free(&c);
}

/* Capacity 3: full after three pages, an overwrite needs no room. */
static void test_capacity(void **state)
{
	struct ftl_cache c;
	u64 lpn;

	(void)state;
	assert_int_equal(ftl_cache_init(&c, 100, 3), 0);
	ftl_cache_store(&c, 10, 1);
	ftl_cache_store(&c, 20, 2);
	assert_false(ftl_cache_full(&c));
	ftl_cache_store(&c, 30, 3);
	assert_true(ftl_cache_full(&c));
	ftl_cache_store(&c, 20, 4);
	assert_int_equal(c.entries, 3);
	assert_int_equal(ftl_cache_oldest(&c, &lpn), 1);
	assert_int_equal(lpn, 10);
	ftl_cache_pop(&c);
	assert_false(ftl_cache_full(&c));
	/* The ring wraps around. */
	ftl_cache_store(&c, 40, 5);
	assert_true(ftl_cache_full(&c));
	assert_int_equal(ftl_cache_oldest(&c, &lpn), 4);
	assert_int_equal(lpn, 20);
	ftl_cache_pop(&c);
	assert_int_equal(ftl_cache_oldest(&c, &lpn), 3);
	ftl_cache_pop(&c);
	assert_int_equal(ftl_cache_oldest(&c, &lpn), 5);
	assert_int_equal(lpn, 40);
	ftl_cache_free(&c);
}

/* A flush covers what was cached before its mark, not what came after. */
static void test_flush_mark(void **state)
{
	struct ftl_cache c;
	u64 mark, lpn;

	(void)state;
	assert_int_equal(ftl_cache_init(&c, 16, 0), 0);
	mark = ftl_cache_mark(&c);
	assert_true(ftl_cache_passed(&c, mark));
	ftl_cache_store(&c, 1, 1);
	ftl_cache_store(&c, 2, 2);
	mark = ftl_cache_mark(&c);
	ftl_cache_store(&c, 3, 3);
	ftl_cache_store(&c, 1, 4);	/* cached before the mark: covered */
	assert_false(ftl_cache_passed(&c, mark));
	ftl_cache_oldest(&c, &lpn);
	assert_int_equal(lpn, 1);
	ftl_cache_pop(&c);
	assert_false(ftl_cache_passed(&c, mark));
	ftl_cache_pop(&c);
	assert_true(ftl_cache_passed(&c, mark));
	assert_int_equal(c.entries, 1);
	assert_int_equal(ftl_cache_peek(&c, 3), 3);
	/* Removed out of order: an empty cache has nothing left to flush. */
	assert_int_equal(ftl_cache_remove(&c, 3), 3);
	assert_true(ftl_cache_passed(&c, ftl_cache_mark(&c)));
	ftl_cache_free(&c);
}

/*
 * A full ring of FUA-removed entries in front of one live entry: each call
 * steps past at most FTL_CACHE_SKIP_MAX of them (a bounded hold of the
 * host's lock) and frees as many ring slots; a flush still waits for the
 * live entry.
 */
static void test_skip_bounded(void **state)
{
	const u64 cap = 1000;
	struct ftl_cache c;
	u64 lpn, i, head, mark, calls = 0;
	u32 v;

	(void)state;
	assert_int_equal(ftl_cache_init(&c, cap, cap), 0);
	for (i = 0; i < cap; i++)
		ftl_cache_store(&c, i, (u32)i + 1);
	for (i = 0; i + 1 < cap; i++)
		assert_int_equal(ftl_cache_remove(&c, i), i + 1);
	assert_true(ftl_cache_full(&c));
	mark = ftl_cache_mark(&c);
	assert_false(ftl_cache_passed(&c, mark));
	do {
		head = c.head;
		v = ftl_cache_oldest(&c, &lpn);
		calls++;
		assert_true(c.head - head <= FTL_CACHE_SKIP_MAX);
		/* The first call alone makes room for a new entry. */
		assert_false(ftl_cache_full(&c));
	} while (v == FTL_CACHE_NONE);
	/* Every full step of 64 returns nothing; the last one finds it. */
	assert_int_equal(calls, (cap - 1) / FTL_CACHE_SKIP_MAX + 1);
	assert_int_equal(v, cap);
	assert_int_equal(lpn, cap - 1);
	assert_false(ftl_cache_passed(&c, mark));
	ftl_cache_pop(&c);
	assert_true(ftl_cache_passed(&c, mark));
	assert_int_equal(ftl_cache_oldest(&c, &lpn), FTL_CACHE_NONE);
	assert_int_equal(c.head, c.tail);
	ftl_cache_free(&c);
}

#define M_LPNS	64
#define M_STRICT	48	/* pages below this are never removed */
#define M_CAP	16

static u64 rng = 0xcac4eULL;

static u32 rnd(u32 n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

/*
 * The model: the latest value of each page and when its residency began
 * (a counter). Checked after each step: peek agrees with it; a write-back
 * returns the page's latest value; pages that are never removed out of
 * order (below M_STRICT) are written back in the order they entered; when
 * a flush mark is passed, no page that entered before it is still cached.
 * (A page removed out of order and cached again may be written back at
 * its old place: early, which is allowed.)
 */
struct model {
	u32 val[M_LPNS];
	u64 since[M_LPNS];
	u64 clock;
	u64 entries;
};

static void model_writeback(struct ftl_cache *c, struct model *m)
{
	u64 lpn, i;
	u32 v = ftl_cache_oldest(c, &lpn);

	assert_int_not_equal(v, FTL_CACHE_NONE);
	assert_int_equal(v, m->val[lpn]);
	for (i = 0; lpn < M_STRICT && i < M_STRICT; i++)
		if (m->val[i])
			assert_true(m->since[i] >= m->since[lpn]);
	ftl_cache_pop(c);
	m->val[lpn] = FTL_CACHE_NONE;
	m->entries--;
}

static void model_store(struct ftl_cache *c, struct model *m, u64 lpn)
{
	u32 v = rnd(4) ? 1 + rnd(1000) :
		(rnd(2) ? FTL_CACHE_DISCARD : FTL_CACHE_UNMAP);

	if (!m->val[lpn] && ftl_cache_full(c))
		model_writeback(c, m);
	if (!m->val[lpn]) {
		m->since[lpn] = ++m->clock;
		m->entries++;
	}
	assert_int_equal(ftl_cache_store(c, lpn, v), m->val[lpn]);
	m->val[lpn] = v;
}

static void model_flush(struct ftl_cache *c, struct model *m)
{
	u64 mark = ftl_cache_mark(c), before = m->clock, i;

	while (!ftl_cache_passed(c, mark))
		model_writeback(c, m);
	for (i = 0; i < M_LPNS; i++)
		if (m->val[i])
			assert_true(m->since[i] > before);
}

static void test_random_model(void **state)
{
	struct ftl_cache c;
	struct model m;
	unsigned int step;

	(void)state;
	memset(&m, 0, sizeof(m));
	assert_int_equal(ftl_cache_init(&c, M_LPNS, M_CAP), 0);
	for (step = 0; step < 200000; step++) {
		u64 lpn = rnd(M_LPNS);
		u32 op = rnd(100);

		if (op < 70) {
			model_store(&c, &m, lpn);
		} else if (op < 80 && lpn >= M_STRICT) {
			assert_int_equal(ftl_cache_remove(&c, lpn), m.val[lpn]);
			if (m.val[lpn])
				m.entries--;
			m.val[lpn] = FTL_CACHE_NONE;
		} else if (op < 95) {
			if (m.entries)
				model_writeback(&c, &m);
		} else {
			model_flush(&c, &m);
		}
		assert_int_equal(c.entries, m.entries);
		assert_true(c.tail - c.head <= M_CAP);
		assert_int_equal(ftl_cache_peek(&c, lpn), m.val[lpn]);
	}
	ftl_cache_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_sizes),
		cmocka_unit_test(test_init_enomem),
		cmocka_unit_test(test_store_replaces),
		cmocka_unit_test(test_writeback_order),
		cmocka_unit_test(test_capacity),
		cmocka_unit_test(test_flush_mark),
		cmocka_unit_test(test_skip_bounded),
		cmocka_unit_test(test_random_model),
	};

	return cmocka_run_group_tests_name("cache", tests, NULL, NULL);
}
