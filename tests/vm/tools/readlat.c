// SPDX-License-Identifier: GPL-2.0
/*
 * readlat DEVICE STOPFILE: read random 4 KiB blocks of DEVICE with O_DIRECT,
 * one at a time, until STOPFILE exists (checked every 64 reads, or 120 s
 * at most), then print "reads=N max_us=M" with the number of reads and the
 * longest single read in microseconds. Exits 1 if a read fails.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define BS 4096

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int main(int argc, char **argv)
{
	uint64_t size, blocks, n = 0, max = 0, start, t0, t1;
	uint32_t x = 12345;
	void *buf;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: readlat DEVICE STOPFILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_DIRECT);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size) || size < BS) {
		perror(argv[1]);
		return 1;
	}
	if (posix_memalign(&buf, BS, BS))
		return 1;
	blocks = size / BS;
	start = now_us();
	for (;;) {
		if ((n & 63) == 0 &&
		    (!access(argv[2], F_OK) || now_us() - start > 120000000))
			break;
		x = x * 1103515245 + 12345;
		t0 = now_us();
		if (pread(fd, buf, BS, (off_t)((x >> 4) % blocks) * BS) != BS) {
			perror("pread");
			return 1;
		}
		t1 = now_us();
		if (t1 - t0 > max)
			max = t1 - t0;
		n++;
	}
	printf("reads=%llu max_us=%llu\n", (unsigned long long)n,
	       (unsigned long long)max);
	return 0;
}
