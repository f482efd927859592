// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_trace.c - libFuzzer target for the trace parsers and the replay.
 *
 * Input: byte 0 picks the format (% 4: blkparse, iolog, msr, ftlblk), the
 * blkparse event (/ 4 % 3: D, C, Q) and the device (/ 12 % 2: one FTL
 * with 3 placement classes, or two shards of one class), the rest is the
 * trace text, split at '\n'. Every line goes through trace_parse_line();
 * the requests it returns are replayed on a tiny device (32 logical pages
 * of 4 KiB, 4 pages per block, with remanence), so requests beyond the
 * device, partial pages, batches, write-zeroes and secure erases across
 * shards, writes of every class and of classes not configured are all
 * reached. Checked:
 * an error always carries a reason, a request is never empty and never
 * wraps, an unmapped page never has non-zero sectors, and ftl_check()
 * holds at the end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "replay.h"
#include "tracefile.h"

/* Logical pages: two shards of 4-page blocks need 32 at 100 % OP. */
#define FUZZ_PAGES	32

/* The device byte 0 picks, or abort(). */
static struct simdev *fuzz_device(u8 pick)
{
	struct ftl_config cfg;
	struct simdev *d;
	const char *why;
	int err = 0;

	ftl_config_init(&cfg, FUZZ_PAGES);
	cfg.pages_per_block = 4;
	cfg.op_percent = 100;
	cfg.wl_threshold = 2;
	cfg.remanence = 1;
	/* a shard of 4 spare blocks has room for one class only */
	cfg.placement_classes = (pick / 12) % 2 ? 0 : 3;
	ftl_port_quiet = true;
	d = simdev_create(&cfg, (pick / 12) % 2 + 1, NULL, NULL, &err, &why);
	if (!d)
		abort();
	return d;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char events[] = { 'D', 'C', 'Q' };
	struct trace_parser p;
	struct trace_req req;
	struct replay r;
	struct simdev *d;
	const char *s, *end, *nl;
	u64 lpn;

	if (!size)
		return 0;
	d = fuzz_device(data[0]);
	if (replay_init(&r, d, 4096, FUZZ_PAGES))
		abort();
	trace_parser_init(&p, (enum trace_format)(data[0] % 4),
			  events[(data[0] / 4) % 3]);
	s = (const char *)data + 1;
	end = (const char *)data + size;
	while (s < end) {
		const char *why = NULL;
		int ret;

		nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl)
			nl = end;
		ret = trace_parse_line(&p, s, (size_t)(nl - s), &req);
		if (ret < 0 && !p.err[0])
			abort();
		if (ret > 0) {
			if (!req.nr_sects || req.sector + req.nr_sects <
			    req.sector)
				abort();
			if (replay_req(&r, &req, &why) && !why)
				abort();
		}
		s = nl + 1;
	}
	for (lpn = 0; lpn < FUZZ_PAGES; lpn++)
		if (!simdev_mapped(d, lpn) && r.nonzero[lpn])
			abort();
	if (simdev_check(d))
		abort();
	replay_destroy(&r);
	simdev_destroy(d);
	return 0;
}
