// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_trace.c - libFuzzer target for the trace parsers and the replay.
 *
 * Input: byte 0 picks the format (and the blkparse event), the rest is the
 * trace text, split at '\n'. Every line goes through trace_parse_line();
 * the requests it returns are replayed on a tiny FTL (16 logical pages of
 * 4 KiB, 4 pages per block), so requests beyond the device, partial pages
 * and batches are all reached. Checked: an error always carries a reason,
 * a request is never empty and never wraps, an unmapped page never has
 * non-zero sectors, and ftl_check() holds at the end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ftl.h"
#include "replay.h"
#include "tracefile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char events[] = { 'D', 'C', 'Q' };
	struct trace_parser p;
	struct trace_req req;
	struct ftl_config cfg;
	struct replay r;
	struct ftl *ftl;
	const char *s, *end, *nl;
	int err = 0;
	u64 lpn;

	if (!size)
		return 0;
	ftl_config_init(&cfg, 16);
	cfg.pages_per_block = 4;
	cfg.op_percent = 100;
	cfg.wl_threshold = 2;
	ftl_port_quiet = true;
	ftl = ftl_create(&cfg, NULL, NULL, &err);
	if (!ftl || replay_init(&r, ftl, 4096, 16))
		abort();
	trace_parser_init(&p, (enum trace_format)(data[0] % 3),
			  events[(data[0] / 3) % 3]);
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
	for (lpn = 0; lpn < 16; lpn++)
		if (ftl_lookup(ftl, lpn) == FTL_UNMAPPED && r.nonzero[lpn])
			abort();
	if (ftl_check(ftl))
		abort();
	replay_destroy(&r);
	ftl_destroy(ftl);
	return 0;
}
