// SPDX-License-Identifier: GPL-2.0
/*
 * uring-discard DEVICE OP...: asynchronous discards and writes through one
 * io_uring submission, each OP one SQE in the order given:
 *
 *   w:PAGE:BYTE[+link|+drain]   O_DIRECT write of one 4 KiB page filled
 *                               with BYTE (decimal) at page PAGE
 *   d:PAGE:COUNT[+link|+drain]  io_uring_prep_cmd_discard() (liburing 2.8;
 *                               BLOCK_URING_CMD_DISCARD, Linux 6.12,
 *                               50c52250e2d7) of COUNT 4 KiB pages at PAGE
 *
 * +link sets IOSQE_IO_LINK (the next SQE starts after this one completes),
 * +drain IOSQE_IO_DRAIN (this one starts after every earlier one). All
 * are submitted with one io_uring_submit_and_wait() and reaped; one line
 * per OP is printed, in OP order: "ok" or the errno name of its completion
 * (EOPNOTSUPP where the kernel has no such command, ECANCELED for a link
 * broken by an earlier failure). Exit status 0 if every OP succeeded, 1 if
 * one failed, 2 on bad usage or a setup error.
 *
 * Built on liburing >= 2.8 (the trixie chroot's, statically:
 * tests/vm/lib/initramfs.sh), so it runs on every guest kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errname.h"

#define PAGE 4096
#define MAX_OPS 64

/* Prepare the next SQE of @ring from OP @s; Return: 0, or -1 if bad. */
static int prep_op(struct io_uring *ring, const char *s, int fd, void *buf,
		   int index)
{
	unsigned long long page, arg;
	struct io_uring_sqe *sqe;
	char kind, mod[8] = "";
	int n = 0;

	if (sscanf(s, "%c:%llu:%llu%n", &kind, &page, &arg, &n) != 3)
		return -1;
	if (s[n] && (sscanf(s + n, "+%7s", mod) != 1 ||
		     (strcmp(mod, "link") && strcmp(mod, "drain"))))
		return -1;
	sqe = io_uring_get_sqe(ring);
	if (!sqe)
		return -1;
	if (kind == 'w' && arg < 256) {
		memset(buf, (int)arg, PAGE);
		io_uring_prep_write(sqe, fd, buf, PAGE, page * PAGE);
	} else if (kind == 'd') {
		io_uring_prep_cmd_discard(sqe, fd, page * PAGE, arg * PAGE);
	} else {
		return -1;
	}
	if (!strcmp(mod, "link"))
		sqe->flags |= IOSQE_IO_LINK;
	else if (!strcmp(mod, "drain"))
		sqe->flags |= IOSQE_IO_DRAIN;
	io_uring_sqe_set_data64(sqe, index);
	return 0;
}

/* Reap @nops completions into @res by user data; Return: 0 or -errno. */
static int reap(struct io_uring *ring, int *res, int nops)
{
	struct io_uring_cqe *cqe;
	int i, err;

	for (i = 0; i < nops; i++) {
		err = io_uring_wait_cqe(ring, &cqe);
		if (err)
			return err;
		res[io_uring_cqe_get_data64(cqe)] = cqe->res;
		io_uring_cqe_seen(ring, cqe);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int res[MAX_OPS], nops = argc - 2, i, fd, err, failed = 0;
	struct io_uring ring;
	char *bufs;

	if (nops < 1 || nops > MAX_OPS) {
		fprintf(stderr, "usage: uring-discard DEVICE w:PAGE:BYTE|d:PAGE:COUNT[+link|+drain]...\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_DIRECT);
	if (fd < 0 || posix_memalign((void **)&bufs, PAGE, (size_t)nops * PAGE)) {
		fprintf(stderr, "uring-discard: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	err = io_uring_queue_init(MAX_OPS, &ring, 0);
	if (err) {
		fprintf(stderr, "uring-discard: io_uring_queue_init: %s\n",
			strerror(-err));
		return 2;
	}
	for (i = 0; i < nops; i++) {
		if (prep_op(&ring, argv[i + 2], fd, bufs + (size_t)i * PAGE, i)) {
			fprintf(stderr, "uring-discard: bad OP '%s'\n", argv[i + 2]);
			return 2;
		}
	}
	err = io_uring_submit_and_wait(&ring, nops);
	if (err != nops) {
		fprintf(stderr, "uring-discard: submit: %s\n",
			err < 0 ? strerror(-err) : "short submission");
		return 2;
	}
	err = reap(&ring, res, nops);
	if (err) {
		fprintf(stderr, "uring-discard: reap: %s\n", strerror(-err));
		return 2;
	}
	for (i = 0; i < nops; i++) {
		printf("%s\n", res[i] < 0 ? errno_name(-res[i]) : "ok");
		failed |= res[i] < 0;
	}
	io_uring_queue_exit(&ring);
	return failed;
}
