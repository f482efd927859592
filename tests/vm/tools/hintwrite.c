// SPDX-License-Identifier: GPL-2.0
/*
 * hintwrite DEVICE HINT PAGE COUNT BYTE: set the write lifetime hint HINT
 * (0..5, RWH_WRITE_LIFE_NOT_SET .. EXTREME) on DEVICE with
 * fcntl(F_SET_RW_HINT), then write COUNT 4 KiB pages filled with BYTE from
 * page PAGE, O_DIRECT, one pwrite() each. The hint belongs to the inode
 * (Linux 6.9+ carries it into the bios of direct I/O): two writers with
 * different hints need two device nodes. Prints "ok" or the errno name of
 * the first failure; exits 0, 1 on a failed call, 2 on bad usage.
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

#define PAGE 4096

int main(int argc, char **argv)
{
	unsigned long long page, count, i;
	uint64_t hint;
	void *buf;
	int fd;

	if (argc != 6) {
		fprintf(stderr, "usage: hintwrite DEVICE HINT PAGE COUNT BYTE\n");
		return 2;
	}
	hint = strtoull(argv[2], NULL, 0);
	page = strtoull(argv[3], NULL, 0);
	count = strtoull(argv[4], NULL, 0);
	if (posix_memalign(&buf, PAGE, PAGE))
		return 2;
	memset(buf, (int)strtoul(argv[5], NULL, 0), PAGE);
	fd = open(argv[1], O_WRONLY | O_DIRECT);
	if (fd < 0 || fcntl(fd, F_SET_RW_HINT, &hint)) {
		printf("%s\n", errno_name(errno));
		return 1;
	}
	for (i = 0; i < count; i++)
		if (pwrite(fd, buf, PAGE, (off_t)((page + i) * PAGE)) != PAGE) {
			printf("%s\n", errno_name(errno));
			return 1;
		}
	printf("ok\n");
	return 0;
}
