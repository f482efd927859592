// SPDX-License-Identifier: GPL-2.0
/*
 * wearout DEV SEED [MAX]: wear a block device out and prove that nothing it
 * acknowledged was lost.
 *
 * Writes 4 KiB pages (O_DIRECT, one page per write(2), so a write is
 * applied whole or not at all) at random page numbers, each stamped with
 * its page number and a generation, and remembers the generation of every
 * acknowledged write. It stops at the first failed write, then checks:
 * 64 more writes and a BLKDISCARD all fail, and every page reads back
 * exactly its last acknowledged generation (or zeroes if never written).
 * Prints one line per fact, "key value", and exits 0 only if the first
 * failure was EIO from the device (or EPERM: the block layer refusing
 * writes once the disk is marked read-only) and every page verified.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "errname.h"

#define PAGE	4096
/* Writes before giving up on a device that does not wear out (default). */
#define MAX_WRITES	(1000u * 1000)

static uint64_t rng;

static uint64_t next(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void stamp(uint64_t *buf, uint64_t page, uint64_t gen)
{
	size_t i;

	for (i = 0; i < PAGE / sizeof(*buf); i++)
		buf[i] = gen ? (page << 32 | gen) ^ (i * 0x9e3779b1ULL) : 0;
}

int main(int argc, char **argv)
{
	uint64_t *buf, *want, *gens, pages, acked = 0, bad = 0, i;
	uint64_t range[2], max = MAX_WRITES;
	int fd, first_err = 0, refused = 0;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: wearout DEV SEED [MAX]\n");
		return 2;
	}
	rng = strtoull(argv[2], NULL, 0);
	if (argc == 4)
		max = strtoull(argv[3], NULL, 0);
	fd = open(argv[1], O_RDWR | O_DIRECT);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &pages)) {
		perror(argv[1]);
		return 2;
	}
	pages /= PAGE;
	gens = calloc(pages, sizeof(*gens));
	if (posix_memalign((void **)&buf, PAGE, PAGE) ||
	    posix_memalign((void **)&want, PAGE, PAGE) || !gens)
		return 2;
	for (i = 0; i < max; i++) {
		uint64_t page = next() % pages;

		stamp(buf, page, i + 1);
		if (pwrite(fd, buf, PAGE, page * PAGE) != PAGE) {
			first_err = errno;
			break;
		}
		gens[page] = i + 1;
		acked++;
	}
	printf("acknowledged_writes %llu\n", (unsigned long long)acked);
	printf("first_error %s\n", first_err ? errno_name(first_err) : "none");
	for (i = 0; i < 64; i++) {
		uint64_t page = next() % pages;

		stamp(buf, page, max + i + 1);
		refused += pwrite(fd, buf, PAGE, page * PAGE) < 0;
	}
	printf("writes_refused_after %d/64\n", refused);
	range[0] = 0;
	range[1] = pages * PAGE;
	printf("discard_after %s\n",
	       ioctl(fd, BLKDISCARD, range) ? errno_name(errno) : "ok");
	for (i = 0; i < pages; i++) {
		if (pread(fd, buf, PAGE, i * PAGE) != PAGE) {
			printf("read_error page %llu %s\n", (unsigned long long)i,
			       errno_name(errno));
			bad++;
			continue;
		}
		stamp(want, i, gens[i]);
		if (memcmp(buf, want, PAGE)) {
			if (bad < 5)
				printf("mismatch page %llu generation %llu\n",
				       (unsigned long long)i,
				       (unsigned long long)gens[i]);
			bad++;
		}
	}
	printf("pages_verified %llu\n", (unsigned long long)(pages - bad));
	printf("pages_lost %llu\n", (unsigned long long)bad);
	close(fd);
	return (first_err == EIO || first_err == EPERM) && !bad ? 0 : 1;
}
