/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shadow.h - a reference data store around one FTL instance, shared by the
 * unit tests, the model test and the fuzzer.
 *
 * The core keeps no data, so the shadow keeps it: a "content" word per
 * physical page, handed over by the move callback and cleared by the release
 * callback, plus a plain reference array of what every logical page must
 * read back. On top it mirrors the physical->logical map, the NAND
 * program-once rule, per-block erase counts and every counter the core
 * reports, and checks them against the core after each operation.
 *
 * Nothing here aborts: the first violation is recorded in sh->err and
 * sh->failed is set; callers (cmocka tests, the fuzzer) decide what to do.
 */
#ifndef FTL_TESTS_SHADOW_H
#define FTL_TESTS_SHADOW_H

#include "../ftl.h"

#define SHADOW_NONE	U64_MAX
/* block_class: an erased block; a block relocations of class c fill */
#define SHADOW_NO_CLASS		0xfe
#define SHADOW_GC_CLASS(c)	(0x80 | (c))

struct shadow_counts {
	u64 host_written;
	u64 host_read;
	u64 unmapped_reads;
	u64 discard_calls;
	u64 pages_discarded;
	u64 valid_pages_discarded;
	u64 moves;
	u64 gc_moves;		/* moves attributed by collected(GC) */
	u64 wl_moves;		/* moves attributed by collected(WL) */
	u64 se_moves;		/* moves attributed by collected(SECURE_ERASE) */
	u64 gc_runs;
	u64 wl_runs;
	u64 erases;
	u64 releases;
	u64 retired;		/* retired callbacks: blocks gone bad */
	u64 atomic_writes;	/* ftl_write_atomic() calls that mapped */
	u64 abandoned;		/* pages they programmed and left unmapped */
};

struct shadow {
	struct ftl *ftl;
	struct ftl_config cfg;
	struct ftl_geometry geo;

	u64 *ref;		/* per lpn: expected content, 0 = reads zeroes */
	u64 *content;		/* per ppn: stored content, 0 = none */
	u64 *p2l;		/* per ppn: lpn whose data it holds, or NONE */
	u32 *l2p;		/* per lpn: ppn, or FTL_UNMAPPED */
	u8 *programmed;		/* per ppn: programmed since its block's erase */
	u32 *written;		/* per ppn: lpn programmed since its erase, kept
				 * after a release or move (NAND's spare area),
				 * or FTL_UNMAPPED */
	u32 *erase_count;	/* per block, from the erased callback */
	u32 *pending_moves;	/* per block: pages moved out since erase */
	u8 *bad;		/* per block: retired, must never be used */
	u8 *block_class;	/* per block: the placement class of every page
				 * programmed since its erase, SHADOW_GC_CLASS()
				 * for relocations, SHADOW_NO_CLASS if none */
	u8 *lpn_class;		/* per lpn: the class of its last write */
	u64 generation;		/* content = generation << 32 | lpn */
	u64 mapped;		/* lpns holding data */

	struct shadow_counts n;	/* since the last ftl_reset_stats() */
	struct shadow_counts before_reset; /* sums of n at earlier resets */
	u64 releases_total;	/* never reset */
	u64 moves_total;
	u64 erases_total;
	u32 last_released;	/* ppn of the latest release callback */
	u32 last_moved_from;	/* ... and of the latest move */
	u64 collected_total;	/* collected callbacks since init */
	u32 first_collected;	/* block of the first one */
	u32 first_relocated;	/* and its relocated count */

	/* the operation in progress: which callbacks it may cause */
	bool in_init;
	bool may_move;		/* GC / WL may run (writes) */
	bool may_erase;
	u64 rel_lo, rel_hi;	/* lpns whose pages it may release */
	u64 init_erases;	/* erased callbacks during ftl_create() */

	int last_rc;		/* of the latest shadow_write/discard */
	bool read_only;		/* a write or discard got -EROFS */
	u32 se_window;		/* shadow_secure_erase() by windows of this
				 * many blocks (0: ftl_secure_erase()) */

	bool failed;
	char err[512];
};

/* Record the first failure; later ones are ignored. Returns false. */
bool shadow_fail(struct shadow *sh, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The callbacks, usable on their own with a struct shadow as ctx. */
extern const struct ftl_ops shadow_ops;
/* The same plus read_oob: the core keeps no reverse map, it reads p2l. */
extern const struct ftl_ops shadow_oob_ops;

/* Create the FTL with shadow_ops; 0 or the ftl_create() error. */
int shadow_init(struct shadow *sh, const struct ftl_config *cfg);
/* The same, with shadow_oob_ops if @oob. */
int shadow_init_mode(struct shadow *sh, const struct ftl_config *cfg,
		     bool oob);
/* Destroy the FTL, check every valid page was released exactly once. */
bool shadow_fini(struct shadow *sh);

/*
 * One FTL operation, checked against the reference. A write or discard
 * that gets -EROFS from a read-only FTL is no failure if nothing changed:
 * it sets last_rc and read_only (any other error fails).
 */
bool shadow_write(struct shadow *sh, u64 lpn);
/* ftl_write_class(); an erase block must only hold pages of one class. */
bool shadow_write_class(struct shadow *sh, u64 lpn, u32 cls);
/* Largest shadow_write_atomic(), in pages. */
#define FTL_SHADOW_MAX_ATOMIC	256
/*
 * ftl_write_atomic() of [@lpn, @lpn + @n): every page written, or (worn
 * out) none changed.
 */
bool shadow_write_atomic(struct shadow *sh, u64 lpn, u32 n, u32 cls);
bool shadow_read(struct shadow *sh, u64 lpn);
/* Discard (or unmap) a range that fits; checks return and side effects. */
bool shadow_discard(struct shadow *sh, u64 lpn, u64 count, bool unmap);
/* A range that does not fit: -ERANGE and nothing changed. */
bool shadow_discard_bad(struct shadow *sh, u64 lpn, u64 count, bool unmap);
/*
 * ftl_secure_erase() of [@lpn, +@count): the range released and reading
 * zeroes, other data intact, and no page outside a bad block holding
 * anything the range ever wrote (the pages in bad blocks are what *@res
 * reports left). *@res receives the core's result.
 */
bool shadow_secure_erase(struct shadow *sh, u64 lpn, u64 count,
			 struct ftl_sanitize *res);
/* Pages outside bad blocks that hold data [@lpn, +@count) ever wrote. */
u64 shadow_copies(const struct shadow *sh, u64 lpn, u64 count);

/*
 * ftl_reclaim_stale(), its moves and erase allowed: false on a shadow
 * failure; *@erased receives its return value.
 */
bool shadow_reclaim_stale(struct shadow *sh, s64 *erased);
void shadow_reset_stats(struct shadow *sh);
/* Counters since shadow_init(), across resets. */
void shadow_totals(const struct shadow *sh, struct shadow_counts *t);

/* Counters and state of the core against the shadow's (cheap). */
bool shadow_check_stats(struct shadow *sh);
/* Everything: ftl_check(), every lookup, every ppn, counters (O(pages)). */
bool shadow_verify(struct shadow *sh);

/* splitmix64 - seeded PRNG for the tests and seed derivation */
static inline u64 splitmix64(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline u64 rnd_below(u64 *state, u64 n)
{
	return n ? splitmix64(state) % n : 0;
}

#endif /* FTL_TESTS_SHADOW_H */
