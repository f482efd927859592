// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_ftl.c - libFuzzer target for the FTL core.
 *
 * The input is a tiny geometry followed by an operation sequence, run
 * under the shadow data store (tests/shadow.c) which checks every read,
 * release, move and erase against a reference array; ftl_check() and the
 * counters are verified after every operation. Any mismatch aborts.
 *
 * Header (6 bytes, missing bytes read as 0):
 *   0  GC policy                     b % 3
 *   1  pages per block               {2, 4, 8}[b % 3]
 *   2  logical blocks                4 + b % 13
 *   3  over-provisioning percent     1 + b % 100 (100 if too few spares)
 *   4  wl threshold                  b % 8 (0 = off); (b >> 3) % 3 picks
 *                                    GC watermarks: default, 2/3, 3/3
 *   5  pages cut off the last block  b % pages_per_block
 * Then one opcode byte (low 4 bits) and its operand bytes per operation:
 *   0-4 write lpn | 5 read lpn | 6 discard lpn len | 7 unmap lpn len |
 *   8 write run lpn len | 9 rewrite lpn n times | 10 out-of-range discard |
 *   11 reset stats | 12 ftl_check + full verify | 13 discard everything |
 *   14 read everything | 15 write every page once (GC pressure)
 *
 * Build and run: make -C ftl fuzz FUZZ_SECONDS=60
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../tests/shadow.h"

struct input {
	const uint8_t *data;
	size_t size, pos;
};

static uint8_t next(struct input *in)
{
	return in->pos < in->size ? in->data[in->pos++] : 0;
}

static u64 next_below(struct input *in, u64 n)
{
	u64 v = next(in);

	if (n > 256)
		v = v << 8 | next(in);
	return n ? v % n : 0;
}

static void die(struct shadow *sh, size_t op, const char *what)
{
	fprintf(stderr, "fuzz_ftl: op %zu: %s\n", op,
		sh->failed ? sh->err : what);
	abort();
}

#define MUST(expr) do {							\
	if (!(expr) || sh.failed)					\
		die(&sh, op, #expr);					\
} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const u32 ppbs[] = { 2, 4, 8 };
	struct input in = { data, size, 0 };
	struct ftl_config cfg;
	struct shadow sh;
	u64 lp, ppb, lb, lpn, len, i;
	uint8_t b;
	size_t op = 0;
	int err;

	ftl_config_init(&cfg, 0);
	cfg.gc_policy = next(&in) % FTL_GC_NR_POLICIES;
	ppb = cfg.pages_per_block = ppbs[next(&in) % 3];
	lb = 4 + next(&in) % 13;
	cfg.op_percent = 1 + next(&in) % 100;
	b = next(&in);
	cfg.wl_threshold = b % 8;
	switch ((b >> 3) % 3) {
	case 1:
		cfg.gc_low_blocks = 2;
		cfg.gc_high_blocks = 3;
		break;
	case 2:
		cfg.gc_low_blocks = 3;
		cfg.gc_high_blocks = 3;
		break;
	}
	cfg.logical_pages = lb * ppb - next(&in) % ppb;
	if (ftl_config_check(&cfg, NULL, NULL))
		cfg.op_percent = 100;
	if (ftl_config_check(&cfg, NULL, NULL)) {
		cfg.gc_low_blocks = 0;
		cfg.gc_high_blocks = 0;
	}
	err = shadow_init(&sh, &cfg);
	if (err) {
		fprintf(stderr, "fuzz_ftl: shadow_init: %d\n", err);
		abort();
	}
	lp = cfg.logical_pages;
	MUST(shadow_verify(&sh));

	while (in.pos < in.size && op < 100000) {
		op++;
		switch (next(&in) & 15) {
		case 0: case 1: case 2: case 3: case 4:
			MUST(shadow_write(&sh, next_below(&in, lp)));
			break;
		case 5:
			MUST(shadow_read(&sh, next_below(&in, lp)));
			break;
		case 6:
		case 7:
			b = in.pos ? in.data[in.pos - 1] & 1 : 0; /* 7: unmap */
			lpn = next_below(&in, lp + 1);
			len = next_below(&in, lp - lpn + 1);
			MUST(shadow_discard(&sh, lpn, len, b));
			break;
		case 8:
			lpn = next_below(&in, lp);
			len = 1 + next_below(&in, 2 * ppb + 1);
			if (len > lp - lpn)
				len = lp - lpn;
			for (i = 0; i < len; i++)
				MUST(shadow_write(&sh, lpn + i));
			break;
		case 9:
			lpn = next_below(&in, lp);
			len = 1 + next(&in) % 16;
			for (i = 0; i < len; i++)
				MUST(shadow_write(&sh, lpn));
			break;
		case 10:
			b = next(&in);
			lpn = next_below(&in, lp + 2);
			if (b & 1)
				len = U64_MAX - (b >> 1) % 4;
			else if (lpn > lp)
				len = (b >> 1) % 3;
			else
				len = lp - lpn + 1 + (b >> 1) % 4;
			MUST(shadow_discard_bad(&sh, lpn, len, b & 2));
			break;
		case 11:
			shadow_reset_stats(&sh);
			break;
		case 12:
			MUST(shadow_verify(&sh));
			break;
		case 13:
			MUST(shadow_discard(&sh, 0, lp, false));
			break;
		case 14:
			for (i = 0; i < lp; i++)
				MUST(shadow_read(&sh, i));
			break;
		case 15:
			for (i = 0; i < lp; i++)
				MUST(shadow_write(&sh, i));
			break;
		}
		MUST(shadow_check_stats(&sh));
		MUST(ftl_check(sh.ftl) == 0);
	}
	MUST(shadow_verify(&sh));
	MUST(shadow_fini(&sh));
	return 0;
}
