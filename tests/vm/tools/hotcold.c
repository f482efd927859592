// SPDX-License-Identifier: GPL-2.0
/*
 * hotcold HOT_DEV COLD_DEV PAGES HOT_PERMILLE ACCESS_PERMILLE FILL WRITES SEED
 *
 * A hot/cold mix of 4 KiB O_DIRECT writes to one device through two of its
 * device nodes, for the placement benchmark (bench/guest.sh, part
 * "placement"): the first HOT_PERMILLE of the PAGES pages are hot and
 * written through HOT_DEV with write lifetime hint SHORT, the others
 * through COLD_DEV with EXTREME (fcntl(F_SET_RW_HINT): the hint belongs to
 * the node's inode). FILL 1 first writes every page once, in order; then
 * WRITES writes, ACCESS_PERMILLE of them to a uniformly drawn hot page,
 * the rest to a uniformly drawn cold page (as ftlsim's --workload
 * hotcold:HOT%:ACCESS%). Prints "ok" or the errno name of the first
 * failure; exits 0, 1 on a failed call, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errname.h"

#ifndef F_SET_RW_HINT
#define F_SET_RW_HINT 1036
#endif
#define RWH_WRITE_LIFE_SHORT	2
#define RWH_WRITE_LIFE_EXTREME	5
#define PAGE 4096

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static int open_hinted(const char *dev, uint64_t hint)
{
	int fd = open(dev, O_WRONLY | O_DIRECT);

	if (fd >= 0 && fcntl(fd, F_SET_RW_HINT, &hint)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int fail(void)
{
	printf("%s\n", errno_name(errno));
	return 1;
}

int main(int argc, char **argv)
{
	unsigned long long pages, hot, writes, i, page;
	unsigned int access;
	uint64_t x;
	void *buf;
	int hot_fd, cold_fd, fd;

	if (argc != 9) {
		fprintf(stderr, "usage: hotcold HOT_DEV COLD_DEV PAGES HOT_PERMILLE ACCESS_PERMILLE FILL WRITES SEED\n");
		return 2;
	}
	pages = strtoull(argv[3], NULL, 0);
	hot = pages * strtoull(argv[4], NULL, 0) / 1000;
	access = (unsigned int)strtoul(argv[5], NULL, 0);
	writes = strtoull(argv[7], NULL, 0);
	x = strtoull(argv[8], NULL, 0) * 0x9e3779b97f4a7c15ULL + 1;
	if (!hot || hot >= pages || access > 1000)
		return 2;
	if (posix_memalign(&buf, PAGE, PAGE))
		return 2;
	memset(buf, 0xa5, PAGE);
	hot_fd = open_hinted(argv[1], RWH_WRITE_LIFE_SHORT);
	cold_fd = open_hinted(argv[2], RWH_WRITE_LIFE_EXTREME);
	if (hot_fd < 0 || cold_fd < 0)
		return fail();
	for (page = 0; atoi(argv[6]) && page < pages; page++) {
		fd = page < hot ? hot_fd : cold_fd;
		if (pwrite(fd, buf, PAGE, (off_t)(page * PAGE)) != PAGE)
			return fail();
	}
	for (i = 0; i < writes; i++) {
		if (rnd(&x) % 1000 < access) {
			page = rnd(&x) % hot;
			fd = hot_fd;
		} else {
			page = hot + rnd(&x) % (pages - hot);
			fd = cold_fd;
		}
		if (pwrite(fd, buf, PAGE, (off_t)(page * PAGE)) != PAGE)
			return fail();
	}
	printf("ok\n");
	return 0;
}
