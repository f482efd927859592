/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An io_uring instance by raw system calls (<linux/io_uring.h>), for the
 * guest tools that need no liburing: Debian 12's is too old for some of
 * the calls the tests make.
 */
#ifndef FTLBLK_TOOLS_URING_H
#define FTLBLK_TOOLS_URING_H

#include <linux/io_uring.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

struct ring {
	int fd;
	struct io_uring_params p;
	unsigned int *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

/* Set up @r with @entries SQEs and setup @flags; Return: 0 or -1 (errno). */
static inline int ring_setup(struct ring *r, unsigned int entries,
			     unsigned int flags)
{
	void *sq, *cq;

	memset(&r->p, 0, sizeof(r->p));
	r->p.flags = flags;
	r->fd = syscall(__NR_io_uring_setup, entries, &r->p);
	if (r->fd < 0)
		return -1;
	sq = mmap(NULL, r->p.sq_off.array + r->p.sq_entries * sizeof(unsigned int),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		  IORING_OFF_SQ_RING);
	cq = mmap(NULL, r->p.cq_off.cqes +
		  r->p.cq_entries * sizeof(struct io_uring_cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		  IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, r->p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		       IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED)
		return -1;
	r->sq_tail = (unsigned int *)((char *)sq + r->p.sq_off.tail);
	r->sq_mask = (unsigned int *)((char *)sq + r->p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)((char *)sq + r->p.sq_off.array);
	r->cq_head = (unsigned int *)((char *)cq + r->p.cq_off.head);
	r->cq_tail = (unsigned int *)((char *)cq + r->p.cq_off.tail);
	r->cq_mask = (unsigned int *)((char *)cq + r->p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)((char *)cq + r->p.cq_off.cqes);
	return 0;
}

#endif
