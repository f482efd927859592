// SPDX-License-Identifier: GPL-2.0
/*
 * fibmap FILE: where a file's data lies on its block device, as the file
 * system reports it through ioctl(FIBMAP) (vfat has no FIEMAP). Prints
 * one line per run of physically contiguous file-system blocks,
 *
 *   DEVICE_BYTE_OFFSET BYTE_LENGTH
 *
 * in file order, covering blocks 0 .. ceil(size / block size) - 1. A hole
 * (block 0) is an error: the tests only map fully written files. Exits 0,
 * or 1 with a message on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uint64_t nblocks, i, run_start = 0, run_len = 0;
	struct stat st;
	int fd, bsz;

	if (argc != 2) {
		fprintf(stderr, "usage: fibmap FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0 || ioctl(fd, FIGETBSZ, &bsz) < 0) {
		fprintf(stderr, "fibmap: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	nblocks = ((uint64_t)st.st_size + bsz - 1) / bsz;
	for (i = 0; i < nblocks; i++) {
		int blk = (int)i;

		if ((uint64_t)blk != i || ioctl(fd, FIBMAP, &blk) < 0) {
			fprintf(stderr, "fibmap: FIBMAP block %" PRIu64 ": %s\n",
				i, strerror(errno));
			return 1;
		}
		if (blk == 0) {
			fprintf(stderr, "fibmap: block %" PRIu64 " is a hole\n", i);
			return 1;
		}
		if (run_len && (uint64_t)blk == run_start + run_len) {
			run_len++;
			continue;
		}
		if (run_len)
			printf("%" PRIu64 " %" PRIu64 "\n",
			       run_start * bsz, run_len * bsz);
		run_start = (uint64_t)blk;
		run_len = 1;
	}
	if (run_len)
		printf("%" PRIu64 " %" PRIu64 "\n", run_start * bsz,
		       run_len * bsz);
	close(fd);
	return 0;
}
