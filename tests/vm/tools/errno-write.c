// SPDX-License-Identifier: GPL-2.0
/*
 * errno-write FILE VALUE: write VALUE to FILE in one write(2) and print
 * the outcome as "ok" or the errno name (EINVAL, EBUSY, ...), so guest
 * tests can check the exact error of a configfs or sysfs write; dash only
 * says "I/O error" for any of them. Exits 0 if the write succeeded.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "errname.h"

int main(int argc, char **argv)
{
	ssize_t n;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: errno-write FILE VALUE\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		printf("%s\n", errno_name(errno));
		return 1;
	}
	n = write(fd, argv[2], strlen(argv[2]));
	if (n < 0) {
		printf("%s\n", errno_name(errno));
		close(fd);
		return 1;
	}
	if (close(fd) < 0) {
		printf("%s\n", errno_name(errno));
		return 1;
	}
	printf("ok\n");
	return 0;
}
