// SPDX-License-Identifier: GPL-2.0
/*
 * pagegrep FILE PAGE_SIZE STRING: the number of every page of FILE (a
 * flash image, /sys/kernel/debug/ftlblk/ftlblkN/flash) that begins with
 * STRING, one per line, in file order. Exits 0, or 2 on bad usage or a
 * read error (a short last page is an error: the image is whole pages).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long long page = 0;
	size_t size, len, got;
	char *buf;
	ssize_t n;
	int fd;

	if (argc != 4 || !(size = strtoul(argv[2], NULL, 0)) ||
	    !(len = strlen(argv[3])) || len > size) {
		fprintf(stderr, "usage: pagegrep FILE PAGE_SIZE STRING\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	buf = malloc(size);
	if (fd < 0 || !buf) {
		perror(argv[1]);
		return 2;
	}
	for (;; page++) {
		for (got = 0; got < size; got += n) {
			n = read(fd, buf + got, size - got);
			if (n <= 0)
				break;
		}
		if (!got)
			break;
		if (got < size) {
			fprintf(stderr, "pagegrep: %s: short page %llu\n",
				argv[1], page);
			return 2;
		}
		if (!memcmp(buf, argv[3], len))
			printf("%llu\n", page);
	}
	free(buf);
	close(fd);
	return 0;
}
