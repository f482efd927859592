// SPDX-License-Identifier: GPL-2.0
/*
 * uring-discard DEVICE OP...: asynchronous discards and writes through one
 * io_uring submission, each OP one SQE in the order given:
 *
 *   w:PAGE:BYTE[+link|+drain]   O_DIRECT write of one 4 KiB page filled
 *                               with BYTE (decimal) at page PAGE
 *   d:PAGE:COUNT[+link|+drain]  BLOCK_URING_CMD_DISCARD (Linux 6.12,
 *                               50c52250e2d7) of COUNT 4 KiB pages at PAGE
 *
 * +link sets IOSQE_IO_LINK (the next SQE starts after this one completes),
 * +drain IOSQE_IO_DRAIN (this one starts after every earlier one). All
 * are submitted with one io_uring_enter and reaped; one line per OP is
 * printed, in OP order: "ok" or the errno name of its completion
 * (EOPNOTSUPP where the kernel has no such command, ECANCELED for a link
 * broken by an earlier failure). Exit status 0 if every OP succeeded, 1 if
 * one failed, 2 on bad usage or a setup error.
 *
 * The discard is what liburing 2.8's io_uring_prep_cmd_discard() prepares
 * (IORING_OP_URING_CMD, cmd_op BLOCK_URING_CMD_DISCARD, addr = offset,
 * addr3 = length, in bytes), written with raw system calls so that the
 * guest's tools need no liburing newer than Debian 12's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "errname.h"
#include "uring.h"

#ifndef BLOCK_URING_CMD_DISCARD
#define BLOCK_URING_CMD_DISCARD _IO(0x12, 0)
#endif

#define PAGE 4096
#define MAX_OPS 64

/* Fill @sqe from OP @s; Return: 0, or -1 if @s is not an OP. */
static int parse_op(const char *s, int fd, void *buf, struct io_uring_sqe *sqe)
{
	unsigned long long page, arg;
	char kind, mod[8] = "";
	int n = 0;

	if (sscanf(s, "%c:%llu:%llu%n", &kind, &page, &arg, &n) != 3)
		return -1;
	if (s[n] && (sscanf(s + n, "+%7s", mod) != 1 ||
		     (strcmp(mod, "link") && strcmp(mod, "drain"))))
		return -1;
	memset(sqe, 0, sizeof(*sqe));
	sqe->fd = fd;
	if (kind == 'w' && arg < 256) {
		memset(buf, (int)arg, PAGE);
		sqe->opcode = IORING_OP_WRITE;
		sqe->addr = (unsigned long)buf;
		sqe->len = PAGE;
		sqe->off = page * PAGE;
	} else if (kind == 'd') {
		sqe->opcode = IORING_OP_URING_CMD;
		sqe->cmd_op = BLOCK_URING_CMD_DISCARD;
		sqe->addr = page * PAGE;
		sqe->addr3 = arg * PAGE;
	} else {
		return -1;
	}
	if (!strcmp(mod, "link"))
		sqe->flags |= IOSQE_IO_LINK;
	else if (!strcmp(mod, "drain"))
		sqe->flags |= IOSQE_IO_DRAIN;
	return 0;
}

int main(int argc, char **argv)
{
	int res[MAX_OPS], nops = argc - 2, i, fd, failed = 0;
	unsigned int tail, head, done = 0;
	struct ring r;
	char *bufs;

	if (nops < 1 || nops > MAX_OPS) {
		fprintf(stderr, "usage: uring-discard DEVICE w:PAGE:BYTE|d:PAGE:COUNT[+link|+drain]...\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_DIRECT);
	if (fd < 0 || posix_memalign((void **)&bufs, PAGE, (size_t)nops * PAGE) ||
	    ring_setup(&r, MAX_OPS, 0)) {
		fprintf(stderr, "uring-discard: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	tail = *r.sq_tail;
	for (i = 0; i < nops; i++, tail++) {
		struct io_uring_sqe *sqe = &r.sqes[tail & *r.sq_mask];

		if (parse_op(argv[i + 2], fd, bufs + (size_t)i * PAGE, sqe)) {
			fprintf(stderr, "uring-discard: bad OP '%s'\n", argv[i + 2]);
			return 2;
		}
		sqe->user_data = i;
		r.sq_array[tail & *r.sq_mask] = tail & *r.sq_mask;
	}
	__atomic_store_n(r.sq_tail, tail, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, r.fd, nops, nops,
		    IORING_ENTER_GETEVENTS, NULL, 0) != nops) {
		fprintf(stderr, "uring-discard: submit: %s\n", strerror(errno));
		return 2;
	}
	while (done < (unsigned int)nops) {
		head = *r.cq_head;
		if (head == __atomic_load_n(r.cq_tail, __ATOMIC_ACQUIRE)) {
			if (syscall(__NR_io_uring_enter, r.fd, 0, 1,
				    IORING_ENTER_GETEVENTS, NULL, 0) < 0 &&
			    errno != EINTR) {
				fprintf(stderr, "uring-discard: reap: %s\n",
					strerror(errno));
				return 2;
			}
			continue;
		}
		res[r.cqes[head & *r.cq_mask].user_data] =
			r.cqes[head & *r.cq_mask].res;
		__atomic_store_n(r.cq_head, head + 1, __ATOMIC_RELEASE);
		done++;
	}
	for (i = 0; i < nops; i++) {
		printf("%s\n", res[i] < 0 ? errno_name(-res[i]) : "ok");
		failed |= res[i] < 0;
	}
	return failed;
}
