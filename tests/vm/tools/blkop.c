// SPDX-License-Identifier: GPL-2.0
/*
 * blkop OP DEVICE OFFSET LENGTH: one discard/zero-out call on a block
 * device, exactly as given (no clamping or splitting, unlike blkdiscard),
 * and print the outcome as "ok" or the errno name (EINVAL, EOPNOTSUPP,
 * ...). Exits 0 on success, 1 on a failed call, 2 on bad usage.
 *
 *   discard     ioctl(BLKDISCARD)       -> REQ_OP_DISCARD
 *   secdiscard  ioctl(BLKSECDISCARD)
 *   zeroout     ioctl(BLKZEROOUT)       -> REQ_OP_WRITE_ZEROES, NOUNMAP
 *   punch       fallocate(PUNCH_HOLE|KEEP_SIZE) -> WRITE_ZEROES, may unmap
 *   zero-range  fallocate(ZERO_RANGE|KEEP_SIZE) -> WRITE_ZEROES, NOUNMAP
 *   write-zeroes  fallocate(FALLOC_FL_WRITE_ZEROES) -> WRITE_ZEROES, may
 *               unmap (6.17+: EOPNOTSUPP before, and where the device
 *               advertises no write_zeroes_unmap_max_bytes)
 *   fsync       fsync(2) of the device  -> REQ_OP_FLUSH (OFFSET, LENGTH
 *               may be left out)
 *
 * OFFSET and LENGTH are bytes, decimal or 0x-hex, up to 2^64 - 1, so a
 * test can hand the kernel a range whose end overflows.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "errname.h"

/* 6.17 (7bd43cc79cab); not in older headers. */
#ifndef FALLOC_FL_WRITE_ZEROES
#define FALLOC_FL_WRITE_ZEROES 0x80
#endif

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	if (*s == '-')
		return -1;
	*v = strtoull(s, &end, 0);
	return errno || end == s || *end ? -1 : 0;
}

int main(int argc, char **argv)
{
	uint64_t off, len, range[2];
	const char *op;
	int fd, ret;

	if (argc == 3 && !strcmp(argv[1], "fsync")) {
		off = len = 0;
	} else if (argc != 5 || parse_u64(argv[3], &off) ||
		   parse_u64(argv[4], &len)) {
		fprintf(stderr, "usage: blkop discard|secdiscard|zeroout|punch|zero-range|write-zeroes DEVICE OFFSET LENGTH\n       blkop fsync DEVICE\n");
		return 2;
	}
	op = argv[1];
	fd = open(argv[2], O_WRONLY);
	if (fd < 0) {
		printf("%s\n", errno_name(errno));
		return 1;
	}
	range[0] = off;
	range[1] = len;
	if (!strcmp(op, "discard")) {
		ret = ioctl(fd, BLKDISCARD, range);
	} else if (!strcmp(op, "secdiscard")) {
		ret = ioctl(fd, BLKSECDISCARD, range);
	} else if (!strcmp(op, "zeroout")) {
		ret = ioctl(fd, BLKZEROOUT, range);
	} else if (!strcmp(op, "punch")) {
		ret = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				(off_t)off, (off_t)len);
	} else if (!strcmp(op, "zero-range")) {
		ret = fallocate(fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
				(off_t)off, (off_t)len);
	} else if (!strcmp(op, "write-zeroes")) {
		ret = fallocate(fd, FALLOC_FL_WRITE_ZEROES, (off_t)off,
				(off_t)len);
	} else if (!strcmp(op, "fsync")) {
		ret = fsync(fd);
	} else {
		fprintf(stderr, "blkop: unknown operation %s\n", op);
		close(fd);
		return 2;
	}
	if (ret < 0) {
		printf("%s\n", errno_name(errno));
		close(fd);
		return 1;
	}
	close(fd);
	printf("ok\n");
	return 0;
}
