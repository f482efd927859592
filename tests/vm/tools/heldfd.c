// SPDX-License-Identifier: GPL-2.0
/*
 * heldfd DEVICE GOFILE: open DEVICE (O_RDWR | O_DIRECT), write and read back
 * one 4 KiB block at offset 0 and print "before: write=R read=R", then wait
 * (up to 120 s) until GOFILE exists, then on the same file descriptor try a
 * read, a write, fsync and BLKGETSIZE64 and print
 * "after: read=R write=R fsync=R size=R", where R is "ok" (with the byte
 * count or size as "ok:N"), "eof" for a read of 0 bytes, or the errno name.
 * Lets a guest test hold a device open across its removal and see what
 * I/O on the stale descriptor gets. Exits 0 unless usage or open fails.
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

#define BS 4096

static void result(const char *name, long long ret, int err, int last)
{
	if (ret < 0)
		printf("%s=%s", name, errno_name(err));
	else if (ret == 0 && !strcmp(name, "read"))
		printf("%s=eof", name);
	else
		printf("%s=ok:%lld", name, ret);
	fputs(last ? "\n" : " ", stdout);
}

int main(int argc, char **argv)
{
	void *buf;
	uint64_t size;
	ssize_t n;
	int fd, i;

	if (argc != 3) {
		fprintf(stderr, "usage: heldfd DEVICE GOFILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_DIRECT);
	if (fd < 0) {
		printf("open=%s\n", errno_name(errno));
		return 1;
	}
	if (posix_memalign(&buf, BS, BS))
		return 1;
	memset(buf, 0xa5, BS);
	printf("before: ");
	n = pwrite(fd, buf, BS, 0);
	result("write", n, errno, 0);
	n = pread(fd, buf, BS, 0);
	result("read", n, errno, 1);
	fflush(stdout);

	for (i = 0; i < 1200 && access(argv[2], F_OK); i++)
		usleep(100000);

	printf("after: ");
	n = pread(fd, buf, BS, 0);
	result("read", n, errno, 0);
	n = pwrite(fd, buf, BS, BS);
	result("write", n, errno, 0);
	n = fsync(fd);
	result("fsync", n, errno, 0);
	n = ioctl(fd, BLKGETSIZE64, &size);
	result("size", n < 0 ? n : (long long)size, errno, 1);
	close(fd);
	free(buf);
	return 0;
}
