// SPDX-License-Identifier: GPL-2.0
/*
 * uring-stream DEVICE STREAM PAGE COUNT BYTE: write COUNT 4 KiB pages
 * filled with BYTE from page PAGE through io_uring with write stream
 * STREAM (the SQE's write_stream, Linux 6.16), O_DIRECT, one SQE each,
 * submitted and reaped one at a time. Prints "ok" or the errno name of the
 * first failed completion; exits 0, 1 on a failure, 2 on bad usage.
 *
 * sid's liburing (its chroot's, statically) ships its own copy of
 * <linux/io_uring.h>, older than write_stream: a __u8 at the start of the
 * union that also holds splice_fd_in (offset 44 of the SQE, 6.16's
 * header). The stream is set through that member: on little-endian x86
 * its low byte.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errname.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "write_stream is set as the low byte of splice_fd_in"
#endif
_Static_assert(offsetof(struct io_uring_sqe, splice_fd_in) == 44,
	       "write_stream sits at offset 44 of the SQE (Linux 6.16)");

#define PAGE 4096

/* One write of @buf at page @page in stream @stream: 0 or -errno. */
static int write_page(struct io_uring *ring, int fd, void *buf,
		      unsigned long long page, unsigned int stream)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	int res;

	io_uring_prep_write(sqe, fd, buf, PAGE, page * PAGE);
	sqe->splice_fd_in = (__u8)stream;	/* write_stream */
	res = io_uring_submit_and_wait(ring, 1);
	if (res < 0)
		return res;
	res = io_uring_wait_cqe(ring, &cqe);
	if (res)
		return res;
	res = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return res == PAGE ? 0 : res < 0 ? res : -EIO;
}

int main(int argc, char **argv)
{
	unsigned long long page, count, i;
	struct io_uring ring;
	unsigned int stream;
	void *buf;
	int fd, err = 0;

	if (argc != 6) {
		fprintf(stderr, "usage: uring-stream DEVICE STREAM PAGE COUNT BYTE\n");
		return 2;
	}
	stream = (unsigned int)strtoul(argv[2], NULL, 0);
	page = strtoull(argv[3], NULL, 0);
	count = strtoull(argv[4], NULL, 0);
	fd = open(argv[1], O_WRONLY | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, PAGE, PAGE) ||
	    io_uring_queue_init(4, &ring, 0)) {
		fprintf(stderr, "uring-stream: %s: setup failed\n", argv[1]);
		return 2;
	}
	memset(buf, (int)strtoul(argv[5], NULL, 0), PAGE);
	for (i = 0; i < count && !err; i++)
		err = write_page(&ring, fd, buf, page + i, stream);
	printf("%s\n", err ? errno_name(-err) : "ok");
	io_uring_queue_exit(&ring);
	return err ? 1 : 0;
}
