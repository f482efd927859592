/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracefile.h - parsers for block I/O traces, one line at a time.
 *
 * Formats: blkparse text (as `blkparse -i` prints it by default), fio
 * iolog version 2 and 3, MSR Cambridge CSV, and the ftlblk module's own
 * ftlblk:ftlblk_request tracepoint (trace_pipe lines, or the same stripped
 * to begin at the disk name). Every line becomes at most one
 * request in 512-byte sectors; anything the parser cannot take is an
 * error naming the line. Plain C with <stdint.h> only, so that the guest
 * tool tests/vm/tools/iolog-replay.c compiles the very same parser.
 */
#ifndef FTLSIM_TRACEFILE_H
#define FTLSIM_TRACEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum trace_format {
	TRACE_BLKPARSE,
	TRACE_IOLOG,
	TRACE_MSR,
	TRACE_FTLBLK,
};

enum trace_op {
	TRACE_READ,
	TRACE_WRITE,
	TRACE_DISCARD,
};

/*
 * How a TRACE_DISCARD request makes its range read zeroes. Only the
 * ftlblk format tells a write-zeroes or a secure erase from a discard
 * (the module serves all three with zero_range(), module/discard.c); the
 * other formats give TRACE_ZERO_DISCARD. A field of its own, not more
 * trace_op values: a tool that only moves data (the guest's iolog-replay
 * switches on the three ops) rightly takes each of them as "the range
 * reads zeroes", and only the replay needs to know how.
 */
enum trace_zero {
	TRACE_ZERO_DISCARD,	/* discard: whole pages ftl_discard()ed */
	TRACE_ZERO_UNMAP,	/* write-zeroes deallocating whole pages */
	TRACE_ZERO_PROGRAM,	/* write-zeroes programming zeroes (NOUNMAP) */
	TRACE_ZERO_SECURE,	/* secure erase: as UNMAP, then old copies erased */
};

/**
 * struct trace_req - one request of a trace
 * @op: read, write or discard (a request after which the range reads
 *	zeroes)
 * @zero: for TRACE_DISCARD, which kind (TRACE_ZERO_DISCARD otherwise)
 * @sector: first 512-byte sector
 * @nr_sects: length in sectors, > 0
 * @file: iolog only: index of the file name in the parser's table (the
 *	order of the "add" lines, or of first use); 0 otherwise
 * @cls: placement class of a write, below TRACE_MAX_CLASSES: the ftlblk
 *	format's class=N (the module's class of the write's lifetime hint or
 *	stream); 0 without it, and in every other format
 * @atomic: an atomic write (REQ_ATOMIC: the ftlblk format's flag
 *	"atomic"), all of its pages mapped at once; false in other formats
 */
struct trace_req {
	enum trace_op op;
	enum trace_zero zero;
	uint64_t sector;
	uint64_t nr_sects;
	unsigned int file;
	unsigned int cls;
	bool atomic;
};

/* The core's FTL_MAX_CLASSES (replay.c checks): classes 0..16. */
#define TRACE_MAX_CLASSES	17

#define TRACE_MAX_FILES	16
#define TRACE_NAME_MAX	256
#define TRACE_DISK_MAX	32	/* the kernel's DISK_NAME_LEN */

/**
 * struct trace_parser - state of one parse
 * @format: the format being parsed
 * @action: blkparse: the event letter that makes a request ('D' dispatch,
 *	'C' completion, 'Q' queued bio)
 * @line: number of the line last given to trace_parse_line(), from 1
 * @iolog_version: 2 or 3 once the header was read, 0 before
 * @have_dev: blkparse: a request line was seen, @dev_major/@dev_minor set
 * @dev_major: blkparse: the device of the first request line
 * @dev_minor: and its minor number
 * @disk: ftlblk: the disk name of the first request line, "" before
 * @in_summary: blkparse: past the per-CPU summary that ends its output
 * @nfiles: iolog: file names seen
 * @files: iolog: the names
 * @skipped: lines that were valid but make no request (flushes, file
 *	actions, other blkparse or ftlblk events, headers, comments)
 * @err: after an error, the reason (without the line number)
 */
struct trace_parser {
	enum trace_format format;
	char action;
	uint64_t line;
	int iolog_version;
	bool have_dev;
	unsigned int dev_major, dev_minor;
	char disk[TRACE_DISK_MAX];
	bool in_summary;
	unsigned int nfiles;
	char files[TRACE_MAX_FILES][TRACE_NAME_MAX];
	uint64_t skipped;
	char err[160];
};

/* "blkparse", "iolog", "msr", "ftlblk"; -1 for anything else. */
int trace_format_parse(const char *name);
const char *trace_format_name(enum trace_format format);
const char *trace_op_name(enum trace_op op);
/*
 * A request's name, for --trace-dump and messages: trace_op_name(), or
 * for a discard of another kind "write-zeroes" (programming zeroes),
 * "write-zeroes-unmap" or "secure-erase".
 */
const char *trace_req_name(const struct trace_req *req);

/* @action: blkparse event letter, 0 for the default ('D'). */
void trace_parser_init(struct trace_parser *p, enum trace_format format,
		       char action);

/**
 * trace_parse_line() - parse the next line
 * @p: parser
 * @s: the line, without its newline; need not be NUL-terminated
 * @len: its length in bytes
 * @req: receives the request
 *
 * Return: 1 with *@req filled, 0 for a line that makes no request, -1 on
 * an error (reason in @p->err, line number in @p->line).
 */
int trace_parse_line(struct trace_parser *p, const char *s, size_t len,
		     struct trace_req *req);

#endif /* FTLSIM_TRACEFILE_H */
