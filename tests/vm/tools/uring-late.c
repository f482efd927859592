// SPDX-License-Identifier: GPL-2.0
/*
 * uring-late [-p] [-w MS] write|read DEVICE OFFSET LENGTH: one O_DIRECT
 * request through io_uring, reaped only MS milliseconds after it was
 * submitted (default 0), and its outcome printed as "ok BYTES" or the
 * errno name (ETIMEDOUT, EIO, ...). With -p the ring polls for
 * completions (IORING_SETUP_IOPOLL: the request goes to a poll queue and
 * nothing ends it until the submitter polls), which is how a guest test
 * leaves a polled request unreaped past its completion time. Exit status
 * 0 if the request succeeded, 1 if it failed, 2 on bad usage or a setup
 * error.
 *
 * Raw io_uring system calls (<linux/io_uring.h>), so that it needs no
 * liburing: Debian 12's is too old for some of the calls the tests make.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "errname.h"
#include "uring.h"

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

int main(int argc, char **argv)
{
	unsigned int flags = 0, tail, head;
	long wait_ms = 0, off, len;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct timespec t0, nap;
	struct ring r;
	void *buf;
	int opt, fd, write;

	while ((opt = getopt(argc, argv, "pw:")) != -1) {
		if (opt == 'p')
			flags |= IORING_SETUP_IOPOLL;
		else if (opt == 'w')
			wait_ms = atol(optarg);
		else
			goto usage;
	}
	if (argc - optind != 4)
		goto usage;
	write = !strcmp(argv[optind], "write");
	if (!write && strcmp(argv[optind], "read"))
		goto usage;
	off = atol(argv[optind + 2]);
	len = atol(argv[optind + 3]);
	fd = open(argv[optind + 1], (write ? O_WRONLY : O_RDONLY) | O_DIRECT);
	if (fd < 0 || len <= 0 || posix_memalign(&buf, 4096, len)) {
		fprintf(stderr, "uring-late: cannot open %s or allocate: %s\n",
			argv[optind + 1], strerror(errno));
		return 2;
	}
	memset(buf, 0x5a, len);
	if (ring_setup(&r, 4, flags)) {
		fprintf(stderr, "uring-late: io_uring_setup: %s\n", strerror(errno));
		return 2;
	}
	tail = *r.sq_tail;
	sqe = &r.sqes[tail & *r.sq_mask];
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = write ? IORING_OP_WRITE : IORING_OP_READ;
	sqe->fd = fd;
	sqe->addr = (unsigned long)buf;
	sqe->len = len;
	sqe->off = off;
	r.sq_array[tail & *r.sq_mask] = tail & *r.sq_mask;
	__atomic_store_n(r.sq_tail, tail + 1, __ATOMIC_RELEASE);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* Submit only: with IOPOLL nothing ends the request until we poll. */
	if (syscall(__NR_io_uring_enter, r.fd, 1, 0, 0, NULL, 0) != 1) {
		fprintf(stderr, "uring-late: submit: %s\n", strerror(errno));
		return 2;
	}
	nap.tv_sec = wait_ms / 1000;
	nap.tv_nsec = wait_ms % 1000 * 1000000;
	while (nanosleep(&nap, &nap) && errno == EINTR)
		;
	for (;;) {
		head = *r.cq_head;
		if (head != __atomic_load_n(r.cq_tail, __ATOMIC_ACQUIRE))
			break;
		if (syscall(__NR_io_uring_enter, r.fd, 0, 1,
			    IORING_ENTER_GETEVENTS, NULL, 0) < 0 && errno != EINTR) {
			fprintf(stderr, "uring-late: reap: %s\n", strerror(errno));
			return 2;
		}
	}
	cqe = &r.cqes[head & *r.cq_mask];
	if (cqe->res < 0)
		printf("%s\n", errno_name(-cqe->res));
	else
		printf("ok %d\n", cqe->res);
	fprintf(stderr, "uring-late: reaped after %ld ms\n", ms_since(&t0));
	__atomic_store_n(r.cq_head, head + 1, __ATOMIC_RELEASE);
	return cqe->res < 0;
usage:
	fprintf(stderr, "usage: uring-late [-p] [-w MS] write|read DEVICE OFFSET LENGTH\n");
	return 2;
}
