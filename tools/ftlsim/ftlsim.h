/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftlsim's parts and what they share: the options (cli.c parses them),
 * one simulation's state (struct sim), the synthetic workloads
 * (workload.c), the trace replay and main (ftlsim.c) and the report
 * (report.c).
 */
#ifndef FTLSIM_H
#define FTLSIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../../ftl/ftl.h"	/* by path: tests/vm/tools/ftlsim.c */
#include "device.h"
#include "replay.h"
#include "timed.h"
#include "tracefile.h"

typedef unsigned long long ULL;	/* for printf %llu */

enum workload { WL_UNIFORM, WL_SEQUENTIAL, WL_HOTCOLD };

/*
 * --classify: which placement class a synthetic write gets, from its
 * logical page alone (never from the PRNG, so that a run with and without
 * it writes the same pages in the same order).
 */
enum classify {
	CLASSIFY_NONE,		/* every write class 0 */
	CLASSIFY_HOTCOLD,	/* the hot pages class 1, the others class 0 */
};

struct opts {
	u64 logical_pages;	/* 0: derive from size */
	u64 size_bytes;		/* 0: unset */
	u32 page_size;
	u32 pages_per_block;
	u32 op_percent;
	u32 shards;
	int policy;
	u32 wl_threshold;
	u32 gc_low, gc_high;
	u32 program_fail_ppm, erase_fail_ppm, endurance;
	u32 remanence;		/* --remanence: 0 or 1 */
	u32 placement_classes;	/* --placement-classes: 0..FTL_MAX_CLASSES */
	enum classify classify;
	u64 fault_seed;
	enum workload workload;
	double hot_pct, access_pct;
	double trim_fraction;
	bool fill;
	double writes;		/* multiple of logical capacity */
	double warmup;		/* multiple of logical capacity, not counted */
	u64 seed;
	bool json;
	const char *csv;
	u64 csv_interval;
	bool check;
	const char *trace;	/* --trace FILE, "-" for stdin */
	int trace_format;	/* enum trace_format, -1 unset */
	char trace_event;	/* blkparse event letter */
	bool trace_dump;
	bool workload_given;	/* a synthetic-workload flag was given */
	bool timing;		/* --timing */
	const char *timing_flag;	/* a timing flag given, for the error */
	struct timed_params tp;
};

/* The program's name as run, for messages (cli.c). */
extern const char *prog;

/* ---- PRNG: xoshiro256** seeded with splitmix64 ------------------------ */

struct rng {
	u64 s[4];
};

static inline u64 splitmix64(u64 *x)
{
	u64 z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline void rng_seed(struct rng *r, u64 seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static inline u64 rotl(u64 x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline u64 rng_next(struct rng *r)
{
	u64 *s = r->s;
	u64 result = rotl(s[1] * 5, 7) * 9;
	u64 t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

/* Uniform in [0, n) by multiply-shift (Lemire); bias < n / 2^64. */
static inline u64 rng_below(struct rng *r, u64 n)
{
	return (u64)(((unsigned __int128)rng_next(r) * n) >> 64);
}

/*
 * Round a non-negative count to the nearest integer, halves up (as
 * llround); no libm, so that tests/vm/tools/ftlsim.c links without -lm.
 */
static inline u64 round_u64(double x)
{
	return x > 0 ? (u64)(x + 0.5) : 0;
}

/* Probability p in [0, 1] as a threshold on a 64-bit draw. */
static inline u64 prob_threshold(double p)
{
	if (p <= 0)
		return 0;
	if (p >= 1)
		return U64_MAX;
	return (u64)(p * 18446744073709551616.0);	/* p * 2^64, exact */
}

/* ---- the set of valid (mapped) logical pages, for trims --------------- */

#define NOT_IN_SET U32_MAX

struct valid_set {
	u32 *list;	/* dense array of valid lpns */
	u32 *pos;	/* pos[lpn]: index in list, or NOT_IN_SET */
	u64 n;
};

static inline void vset_add(struct valid_set *v, u32 lpn)
{
	if (v->pos[lpn] == NOT_IN_SET) {
		v->pos[lpn] = (u32)v->n;
		v->list[v->n++] = lpn;
	}
}

static inline void vset_remove_at(struct valid_set *v, u64 idx)
{
	u32 lpn = v->list[idx];
	u32 last = v->list[--v->n];

	v->list[idx] = last;
	v->pos[last] = (u32)idx;
	v->pos[lpn] = NOT_IN_SET;
}

/* Writes drawn ahead of the one being made (a power of two). */
#define SIM_LOOKAHEAD	16
_Static_assert((SIM_LOOKAHEAD & (SIM_LOOKAHEAD - 1)) == 0,
	       "SIM_LOOKAHEAD indexes a ring by a mask");
/* How far ahead the second, deeper prefetch goes. */
#define SIM_LOOKAHEAD_DEEP	6

struct sim {
	struct opts *o;
	struct simdev *ftl;
	struct ftl_geometry geo;
	struct rng rng;
	struct valid_set vset;
	bool track;		/* maintain vset (trims enabled) */
	u64 trim_thresh;
	u64 hot_thresh;
	u64 hot_n;
	u64 seq_next;
	/*
	 * The workload's next pages, drawn ahead so that their map entries
	 * can be prefetched (run_writes()): ahead[] is a ring of ahead_n
	 * pages from ahead_pos, in the order the workload drew them.
	 */
	u64 ahead[SIM_LOOKAHEAD];
	u32 ahead_pos;
	u32 ahead_n;
	/* counted by the simulator, per measured phase */
	u64 trims;
	u64 trims_skipped;	/* trim drawn while nothing was valid */
	bool worn_out;		/* the FTL turned read-only: the run stopped */
	/* free-block samples taken at every sampling point */
	double free_sum;
	u64 free_samples;
	/* trace replay */
	struct replay rp;
	struct trace_parser tp;
	/* --timing: the engine, NULL without; the fill's next page */
	struct timed *timed;
	u64 read_thresh;
	bool filling;
	u64 fill_next;
};

/* cli.c */
void parse_args(struct opts *o, int argc, char **argv);

/* workload.c */
double now(void);
void run_writes(struct sim *s, u64 count);
void run_fill(struct sim *s);
void check_or_die(struct sim *s, const char *when);
double waf_of(const struct ftl_stats *st);
void sample(struct sim *s, FILE *csv);

/* report.c */
void print_json(struct sim *s, const struct ftl_stats *st, double elapsed,
		u64 measured);
void print_human(struct sim *s, const struct ftl_stats *st, double elapsed,
		 u64 measured);

#endif /* FTLSIM_H */
