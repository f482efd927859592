// SPDX-License-Identifier: GPL-2.0
/*
 * memhog MIB PASSES: anonymous memory that must survive swap. Fills MIB
 * MiB with a stamp per 4 KiB page (page number, pass), then PASSES times
 * walks every page: checks it still holds the last stamp and writes the
 * next. Run in a memory cgroup smaller than MIB, every walk swaps the
 * memory out and in again. Prints
 *   memhog: mib=N passes=N pages=N bad=N
 * and exits 0 if every page held what was last written (bad=0), 1 if not,
 * 2 on error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PAGE 4096
#define WORDS (PAGE / sizeof(uint64_t))

static uint64_t stamp(uint64_t page, uint64_t pass, unsigned int i)
{
	/* Different in every word, page and pass. */
	return (page << 24 ^ pass << 12 ^ i) * 0x9e3779b97f4a7c15ull;
}

static void fill(uint64_t *p, uint64_t page, uint64_t pass)
{
	unsigned int i;

	for (i = 0; i < WORDS; i++)
		p[i] = stamp(page, pass, i);
}

static int holds(const uint64_t *p, uint64_t page, uint64_t pass)
{
	unsigned int i;

	for (i = 0; i < WORDS; i++)
		if (p[i] != stamp(page, pass, i))
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	unsigned long mib, passes, pass, pages, pg, bad = 0;
	uint64_t *mem;

	if (argc != 3 || !(mib = strtoul(argv[1], NULL, 0)) ||
	    !(passes = strtoul(argv[2], NULL, 0))) {
		fprintf(stderr, "usage: memhog MIB PASSES\n");
		return 2;
	}
	pages = mib << 8;
	mem = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("memhog: mmap");
		return 2;
	}
	for (pg = 0; pg < pages; pg++)
		fill(mem + pg * WORDS, pg, 0);
	for (pass = 1; pass <= passes; pass++) {
		for (pg = 0; pg < pages; pg++) {
			uint64_t *p = mem + pg * WORDS;

			if (!holds(p, pg, pass - 1))
				bad++;
			fill(p, pg, pass);
		}
	}
	for (pg = 0; pg < pages; pg++)
		if (!holds(mem + pg * WORDS, pg, passes))
			bad++;
	printf("memhog: mib=%lu passes=%lu pages=%lu bad=%lu\n", mib, passes,
	       pages, bad);
	return bad ? 1 : 0;
}
