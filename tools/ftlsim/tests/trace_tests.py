# SPDX-License-Identifier: GPL-2.0
"""Trace replay tests for ftlsim (run from validate.py, same report()).

  - each parser (blkparse with D, C and Q events, fio iolog v2 and v3, MSR
    CSV, the module's ftlblk_request events as trace_pipe lines and
    stripped) on a small sample: `ftlsim --trace-dump` must list exactly
    the requests of the sample, with their line numbers;
  - bad lines: exit status 1 and "FILE:LINE: reason" naming the line;
  - replay: the counters of two tiny traces against expectations worked
    out by hand below (partial pages, discards of whole and partial pages,
    reads; garbage collection with relocations);
  - write-zeroes (with and without unmap) and secure erase (one FTL and
    two shards, partial pages, --remanence) of the ftlblk format: counters
    worked out by hand from module/discard.c and secure_erase.c;
  - the sanitizer build replays the samples with ftl_check();
  - iolog-replay (the guest tool) on a regular file: its --dry-run lists
    what ftlsim --trace-dump lists, the file ends up holding what the log
    wrote and trimmed, and a bad line fails with its number.
"""
import json
import os
import subprocess
import tempfile

SECTOR = 512

# ---- samples ------------------------------------------------------------

BLKPARSE = """\
  8,0    1        1     0.000000000   412  Q  WS 2048 + 8 [fio]
  8,0    1        2     0.000001000   412  G  WS 2048 + 8 [fio]
  8,0    1        3     0.000002000   412  I  WS 2048 + 8 [fio]
  8,0    1        4     0.000003000   412  D  WS 2048 + 8 [fio]
  8,0    1        5     0.000004000     0  C  WS 2048 + 8 [0]
  8,0    0        6     0.000010000   412  Q   R 0 + 16 [fio]
  8,0    0        7     0.000011000   412  D   R 0 + 16 [fio]
  8,0    0        8     0.000012000     0  C   R 0 + 16 [0]
  8,0    0        9     0.000020000   500  Q   D 64 + 8 [blkdiscard]
  8,0    0       10     0.000021000   500  Q   D 80 + 8 [blkdiscard]
  8,0    0       11     0.000022000   500  M   D 80 + 8 [blkdiscard]
  8,0    0       12     0.000023000   500  D   D 64 + 24 [blkdiscard]
  8,0    0       13     0.000024000     0  C   D 64 + 24 [0]
  8,0    0       14     0.000030000   412  Q FWS [kworker/0:1H]
  8,0    0       15     0.000031000   412  D  FN [kworker/0:1H]
  8,0    0       16     0.000032000     0  C  FN 0 [0]
  8,0    0       17     0.000040000   412  D  WS 4096 + 4 [fio]
  8,0    0       18     0.000041000     0  C  WS 4096 + 4 [-5]
  8,0    1        0     0.000050000     0  m   N cfq412 insert_request
  8,0    1       19     0.000060000   412  P   N [fio]
  8,0    1       20     0.000061000   412  U   N [fio] 1

CPU0 (8,0):
 Reads Queued:           1,        8KiB\t Writes Queued:           1,        4KiB
 Read Dispatches:        1,        8KiB\t Write Dispatches:        1,        4KiB
Total (8,0):
 Reads Queued:           1,        8KiB\t Writes Queued:           1,        4KiB

Throughput (R/W): 8KiB/s / 4KiB/s
Events (8,0): 21 entries
Skips: 0 forward (0 -   0.0%)
"""
BLKPARSE_WANT = {
    # D: requests as ftlblk receives them; the merged discard is one range
    "D": [(4, "write", 2048, 8), (7, "read", 0, 16),
          (12, "discard", 64, 24), (17, "write", 4096, 4)],
    # C: completions; the failed write (-5) is not applied
    "C": [(5, "write", 2048, 8), (8, "read", 0, 16),
          (13, "discard", 64, 24)],
    # Q: bios as submitted, before merging
    "Q": [(1, "write", 2048, 8), (6, "read", 0, 16),
          (9, "discard", 64, 8), (10, "discard", 80, 8)],
}

IOLOG2 = """\
fio version 2 iolog
/dev/ftlblk0 add
/dev/ftlblk0 open
/dev/ftlblk0 write 0 8192
/dev/ftlblk0 write 512 1024
/dev/ftlblk0 read 0 16384
/dev/ftlblk0 trim 0 4096
/dev/ftlblk0 sync 0 0
/dev/ftlblk0 wait 0 100
/dev/ftlblk0 trim 4608 512
/dev/ftlblk0 datasync 0 0
/dev/ftlblk0 close
"""
IOLOG2_WANT = [(4, "write", 0, 16), (5, "write", 1, 2), (6, "read", 0, 32),
               (7, "discard", 0, 8), (10, "discard", 9, 1)]

IOLOG3 = """\
fio version 3 iolog
0 /dev/ftlblk0 add
0 /dev/ftlblk0 open
12 /dev/ftlblk0 write 1048576 131072
13 /dev/ftlblk0 read 4096 512
20 /dev/ftlblk0 trim 1048576 4096
21 /dev/ftlblk0 close
"""
IOLOG3_WANT = [(4, "write", 2048, 256), (5, "read", 8, 1),
               (6, "discard", 2048, 8)]

MSR = """\
128166372003061629,hm,0,Write,3872964608,4096,3880\r
128166372016382155,hm,0,Read,1024,65536,9470\r
128166372026382245,hm,0,write,0,512,100\r
"""
MSR_WANT = [(1, "write", 7564384, 8), (2, "read", 2, 128),
            (3, "write", 0, 1)]

# The module's ftlblk:ftlblk_request events: trace_pipe lines (what
# precedes the event name varies: task, [cpu], flags, timestamp; a task
# name may hold blanks), the trace file's '#' header, other ftlblk events
# (skipped), and the same events stripped to begin at the disk name.
FTLBLK = """\
# tracer: nop
#
#                                _-----=> irqs-off/BH-disabled
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
#              | |         |   |||||     |         |
   kworker/0:1-12    [000] .....   123.456789: ftlblk_request: ftlblk0 op=write sector=2048 nr_sectors=8 flags=
            fio-345  [001] d..1.   123.456800: ftlblk_request: ftlblk0 op=write-zeroes sector=0 nr_sectors=16 flags=unmap
            fio-345  [001] .....   123.456900: ftlblk_request: ftlblk0 op=secure-erase sector=64 nr_sectors=64 flags=
            fio-345  [001] .....   123.456950: ftlblk_discard: ftlblk0 sector=64 nr_sectors=64
            fio-345  [001] .....   123.457000: ftlblk_request: ftlblk0 op=write sector=8 nr_sectors=8 flags=fua|preflush
   Web Content-77    [001] .....   123.457100: ftlblk_request: ftlblk0 op=flush sector=0 nr_sectors=0 flags=preflush
            fio-345  [001] .....   123.457200: ftlblk_complete: ftlblk0 op=write sector=8 nr_sectors=8 pages=1 latency_ns=650000
  kworker/u4:2-9     [000] .....       98765: ftlblk_gc: ftlblk0 block=3 relocated=2 reason=gc
ftlblk0 op=write-zeroes sector=24 nr_sectors=4 flags=
ftlblk0 op=discard sector=8 nr_sectors=8 flags=
ftlblk0 op=read sector=0 nr_sectors=32 flags=
ftlblk0 op=write sector=40 nr_sectors=0 flags=
"""
FTLBLK_WANT = [(6, "write", 2048, 8), (7, "write-zeroes-unmap", 0, 16),
               (8, "secure-erase", 64, 64), (10, "write", 8, 8),
               (14, "write-zeroes", 24, 4), (15, "discard", 8, 8),
               (16, "read", 0, 32)]
# lines without a request: the 5 of the header, 3 other events, the
# flush and the write of 0 sectors
FTLBLK_SKIPPED = 10

# (format, text, line number named in the error, part of the message)
IOLOG_OK_HEAD = "fio version 2 iolog\n/dev/x add\n"
BAD = [
    ("iolog", "fio version 4 iolog\n", 1, "first line"),
    ("iolog", "", 0, "empty"),
    ("iolog", IOLOG_OK_HEAD + "/dev/x write 0 4096\n/dev/x write 100 512\n",
     4, "not a multiple of 512"),
    ("iolog", IOLOG_OK_HEAD + "/dev/x write 0 4096\n/dev/x erase 0 512\n",
     4, "unknown action"),
    ("iolog", IOLOG_OK_HEAD + "/dev/x write 0\n", 3, "FILE ACTION"),
    ("iolog", IOLOG_OK_HEAD + "/dev/y write 0 4096\n", 3, "before its 'add'"),
    ("iolog", IOLOG_OK_HEAD + "/dev/x write 0x10 4096\n", 3, "bad offset"),
    ("iolog", IOLOG_OK_HEAD + "/dev/x write 0 99999999999999999999\n", 3,
     "bad length"),
    ("iolog", "fio version 3 iolog\n0 /dev/x add\nabc /dev/x write 0 4096\n",
     3, "timestamp"),
    ("iolog", IOLOG_OK_HEAD + "/dev/x write %d 4096\n" % (1 << 30), 3,
     "beyond the end of the device"),
    ("blkparse", BLKPARSE.split("\n\n")[0] + "\n  8,16   0  1  0.1  5  D  W 0 + 8 [x]\n",
     22, "device 8,16"),
    ("blkparse", "  8,0 0 1 0.0 5 D W 0 + 8 [x]\nhello world\n", 2,
     "not a blkparse event line"),
    ("blkparse", "  8,0 0 1 0.0 5 D W 0 - 8 [x]\n", 1, "SECTOR + COUNT"),
    ("blkparse", "  8,0 0 1 zero 5 D W 0 + 8 [x]\n", 1, "malformed"),
    ("blkparse", "  8,0 0 1 0.0 5 D X 0 + 8 [x]\n", 1, "unknown RWBS"),
    ("msr", "1,hm,0,Write,0,4096,1\n1,hm,0,Write,0,4096\n", 2, "7 comma"),
    ("msr", "1,hm,0,Trim,0,4096,1\n", 1, "unknown type"),
    ("msr", "1,hm,0,Read,-512,4096,1\n", 1, "bad offset"),
    ("msr", "1,hm,0,Read,512,4000,1\n", 1, "not a multiple of 512"),
    ("ftlblk", "ftlblk0 op=write sector=0 nr_sectors=8 flags=\n"
     "ftlblk0 op=trim sector=0 nr_sectors=8 flags=\n", 2, "unknown op"),
    ("ftlblk", "  fio-1 [000] ..... 1.000001: ftlblk_request: ftlblk0 "
     "op=write sector=0 nr_sectors=8\n", 1, "want 'DISK op=OP"),
    ("ftlblk", "ftlblk0 op=write nr_sectors=8 flags=\n", 1,
     "want 'DISK op=OP"),
    ("ftlblk", "ftlblk0 op=write sector=0 nr_sectors=8 flags=\n"
     "ftlblk0 op=read sector=0 nr_sectors=8 flags=\n"
     "  fio-1 [000] ..... 1.000001: ftlblk_request: ftlblk1 op=write "
     "sector=0 nr_sectors=8 flags=\n", 3,
     "event of device ftlblk1 in a trace of ftlblk0"),
    ("ftlblk", "ftlblk0 op=write sector=0 nr_sectors=8 flags=sync\n", 1,
     "unknown flag 'sync'"),
    ("ftlblk", "ftlblk0 op=discard sector=0 nr_sectors=8 flags=unmap\n", 1,
     "flag 'unmap' on op=discard"),
    ("ftlblk", "ftlblk0 op=write sector=-8 nr_sectors=8 flags=\n", 1,
     "bad sector"),
    ("ftlblk", "ftlblk0 op=write sector=0 nr_sectors=8 flags=fua|\n", 1,
     "ends in '|'"),
    ("ftlblk", "ftlblk0 op=read sector=0 nr_sectors=8 flags=\n"
     "CPU:1 [LOST 12 EVENTS]\n", 2, "lost events"),
    ("ftlblk", "ftlblk0 op=write-zeroes sector=%d nr_sectors=8 flags=\n" %
     (1024 * 8 - 4), 1, "beyond the end of the device"),
    ("ftlblk", "ftlblk0 op=write sector=0 nr_sectors=8 flags= class=17\n", 1,
     "bad class '17' (decimal, below 17)"),
    ("ftlblk", "ftlblk0 op=write sector=0 nr_sectors=8 flags= class=x1\n", 1,
     "bad class 'x1'"),
    ("ftlblk", "ftlblk0 op=read sector=0 nr_sectors=8 flags= class=1\n", 1,
     "class=1 on a request that is no write"),
    ("ftlblk", "ftlblk0 op=discard sector=0 nr_sectors=8 flags=atomic\n", 1,
     "flag 'atomic' on op=discard"),
    ("ftlblk", "ftlblk0 op=write sector=0 nr_sectors=8 flags= stream=1\n", 1,
     "unknown field 'stream=1'"),
    ("ftlblk", "ftlblk0 op=write sector=0 nr_sectors=8 flags= class=1 "
     "class=1\n", 1, "want 'DISK op=OP"),
    # a class the device was not given (no --placement-classes: class 0)
    ("ftlblk", "ftlblk0 op=write sector=0 nr_sectors=8 flags=\n"
     "ftlblk0 op=write sector=8 nr_sectors=8 flags=fua class=1\n", 2,
     "write 8 + 8 class=1: placement class not configured"),
]

# ---- replay expectations, by hand ----------------------------------------
#
# Trace A: 64 logical pages of 4 KiB (8 sectors), no GC. Page p is sectors
# 8p..8p+7. "host" = host_pages_written, "zeroed" = sectors_zeroed.
REPLAY_A = """\
fio version 2 iolog
/dev/x add
/dev/x write 0 8192
/dev/x write 512 1024
/dev/x read 0 16384
/dev/x trim 0 4096
/dev/x trim 4608 512
/dev/x trim 5120 3072
/dev/x trim 4096 512
/dev/x trim 16384 1024
/dev/x write 13824 512
/dev/x trim 13312 1536
/dev/x write 16384 4096
/dev/x trim 16384 3584
/dev/x trim 18432 8192
/dev/x read 16384 12288
"""
# line 3  write pages 0, 1 whole                  host 2, valid 2
# line 4  sectors 1-2 of page 0: read-modify-write host 3
# line 5  read pages 0-3: 2 mapped, 2 unmapped    read 4, unmapped 2
# line 6  trim page 0 whole: discarded            pages_discarded 1 (valid 1)
# line 7  trim sector 9 (page 1, sector 1): still data -> programmed:
#         host 4, zeroed 1
# line 8  trim sectors 10-15: sector 8 still data -> programmed: host 5,
#         zeroed 7
# line 9  trim sector 8: page 1 now all zeroes -> unmapped (not counted as
#         discarded): valid 0, zeroed 8
# line 10 trim sectors 32-33 of unmapped page 4: nothing, zeroed 10
# line 11 write sector 27 (page 3, sector 3): read-modify-write, host 6
# line 12 trim sectors 26-28 of page 3: all zeroes -> unmapped, zeroed 13
# line 13 write page 4 whole: host 7
# line 14 trim sectors 32-38: sector 39 keeps data -> programmed, host 8,
#         zeroed 20
# line 15 trim sectors 36-51: page 4 sectors 4-7 (all zeroes now ->
#         unmapped), page 5 whole (discarded, held nothing: pages_discarded
#         2, valid_pages_discarded still 1), page 6 sectors 0-3 (unmapped:
#         nothing); zeroed 28
# line 16 read pages 4-6: all unmapped: read 7, unmapped 5
REPLAY_A_ARGS = ["--logical-pages", 64, "--pages-per-block", 4,
                 "--op-percent", 25, "--wl-threshold", 0]
REPLAY_A_WANT = {"host_pages_written": 8, "nand_pages_written": 8,
                 "host_pages_read": 7, "unmapped_reads": 5,
                 "pages_discarded": 2, "valid_pages_discarded": 1,
                 "sectors_zeroed": 28, "valid_pages": 0, "gc_runs": 0,
                 "erases": 0, "discard_requests": 8, "write_requests": 4,
                 "read_requests": 2}

# Trace C: a partial write to a written page keeps the rest of it: write
# page 0 whole (host 1), sector 1 again (read-modify-write, host 2), trim
# sector 1: the other 7 sectors still hold data, so the page is programmed
# again (host 3) and stays mapped; zeroed 1.
REPLAY_C = """\
fio version 2 iolog
/dev/x add
/dev/x write 0 4096
/dev/x write 512 512
/dev/x trim 512 512
"""
REPLAY_C_WANT = {"host_pages_written": 3, "valid_pages": 1,
                 "sectors_zeroed": 1, "pages_discarded": 0}

# Trace B: 8 logical pages, 2 pages per block, op 100 %: 4 + 4 spare = 8
# blocks, GC when the host needs a block and fewer than 2 are free, until
# 2 are. Pages written: 0-7 in one request (blocks 1-4, free 4), then
# 0, 2, 4, 6 (blocks 5, 6; free 2; blocks 1-4 hold one valid page each),
# 0 (block 7 opened, free 1; block 5 keeps page 2), 4 (block 7 full:
# {0, 4}; block 6 keeps page 6). Every closed block now holds exactly one
# valid page except block 7 (two). Write 15 (page 0) needs a block with
# 1 free: GC takes the GC stream's block (free 0), relocates a victim's
# one page (greedy: any 1-valid block) and erases it (free 1), then a
# second victim's page fills the GC block, erase: free 2. So 2 GC runs,
# 2 relocations, 2 erases; NAND 15 + 2. Then the whole device is trimmed:
# 8 pages discarded, all 8 held data.
REPLAY_B = ("fio version 3 iolog\n0 /dev/x add\n1 /dev/x write 0 32768\n" +
            "".join("%d /dev/x write %d 4096\n" % (2 + i, p * 4096)
                    for i, p in enumerate([0, 2, 4, 6, 0, 4, 0])) +
            "9 /dev/x trim 0 32768\n")
REPLAY_B_ARGS = ["--logical-pages", 8, "--pages-per-block", 2,
                 "--op-percent", 100, "--wl-threshold", 0]
REPLAY_B_WANT = {"host_pages_written": 15, "nand_pages_written": 17,
                 "gc_relocations": 2, "gc_runs": 2, "erases": 2,
                 "pages_discarded": 8, "valid_pages_discarded": 8,
                 "valid_pages": 0, "write_requests": 8,
                 "discard_requests": 1}


# ---- the ftlblk format: write-zeroes and secure erase, by hand -------------
#
# Each trace below in the stripped form ("ftlblk0 op=..."); "host" =
# host_pages_written, "rmw" = rmw_pages (partial-page programs). The module
# (module/discard.c) serves a write-zeroes with zero_range(): with unmap
# like a discard but with ftl_unmap() (no pages_discarded, no
# sectors_zeroed); without, every page of the range is programmed and
# stays mapped, partial ones even when unmapped before.

def ftlblk_trace(reqs):
    return "".join("ftlblk0 op=%s sector=%d nr_sectors=%d flags=%s\n" % r
                   for r in reqs)


# Trace Z1, write-zeroes with unmap (64 pages of 8 sectors, as trace A):
#  1 write pages 0-7                                    host 8
#  2 write-zeroes sectors 4-43: pages 1-4 whole, ftl_unmap(): valid 4;
#    page 0 sectors 4-7 and page 5 sectors 40-43 partial, their other
#    sectors hold data: programmed                      host 10, rmw 2
#  3 read pages 1-4: unmapped                           read 4, unmapped 4
#  4 write-zeroes sectors 0-3: page 0 now all zeroes (its sectors 4-7
#    were zeroed in 2): unmapped, not programmed        valid 3
#  5 read page 0: unmapped                              read 5, unmapped 5
REPLAY_Z1 = ftlblk_trace([("write", 0, 64, ""),
                          ("write-zeroes", 4, 40, "unmap"),
                          ("read", 8, 32, ""),
                          ("write-zeroes", 0, 4, "unmap"),
                          ("read", 0, 8, "")])
REPLAY_Z1_WANT = {"host_pages_written": 10, "rmw_pages": 2,
                  "valid_pages": 3, "host_pages_read": 5,
                  "unmapped_reads": 5, "pages_discarded": 0,
                  "discard_calls": 0, "valid_pages_discarded": 0,
                  "sectors_zeroed": 0, "write_zeroes_requests": 2,
                  "write_zeroes_sectors": 44, "discard_requests": 0,
                  "write_requests": 1, "trace_requests": 5}

# Trace Z2, write-zeroes without unmap (REQ_NOUNMAP, or discard=0):
#  1 write pages 0, 1                                   host 2
#  2 write-zeroes sectors 4-27: pages 1, 2 whole programmed (2 unmapped
#    before), then page 0 sectors 4-7 and page 3 sectors 24-27 (unmapped:
#    programmed all the same)                           host 6, rmw 2
#  3 read pages 0-3: all mapped                         read 4, unmapped 0
#  4 discard sectors 0-3: page 0 all zeroes now: ftl_unmap()
#  5 discard sectors 24-27: page 3 held only zeroes: ftl_unmap();
#    sectors_zeroed 8 (discards count them, write-zeroes do not)
#  6 write-zeroes page 4 whole, never written: programmed   host 7
#  valid: pages 1, 2, 4
REPLAY_Z2 = ftlblk_trace([("write", 0, 16, ""),
                          ("write-zeroes", 4, 24, ""),
                          ("read", 0, 32, ""),
                          ("discard", 0, 4, ""),
                          ("discard", 24, 4, ""),
                          ("write-zeroes", 32, 8, "")])
REPLAY_Z2_WANT = {"host_pages_written": 7, "nand_pages_written": 7,
                  "rmw_pages": 2, "host_pages_read": 4,
                  "unmapped_reads": 0, "valid_pages": 3,
                  "sectors_zeroed": 8, "pages_discarded": 0,
                  "discard_requests": 2, "write_zeroes_requests": 2,
                  "write_zeroes_sectors": 32}

# Secure erase (module/secure_erase.c): the range zeroed as a write-zeroes
# with unmap, then every block holding a stale copy of one of its pages
# (partial ones included) has its valid pages relocated and is erased.
# 16 pages of 8 sectors, 4 pages per block, op 100 %: 8 blocks, no GC.
SE_ARGS = ["--logical-pages", 16, "--pages-per-block", 4,
           "--op-percent", 100, "--wl-threshold", 0, "--remanence"]
# Trace S1: pages 0-3 (block X), 8-11 (X2), then 8 and 0 again (block Y,
# open: {8', 0'}; X and X2 each hold a stale copy). Secure erase of page
# 0: unmapped (0' stale too); X holds a copy: its pages 1-3 relocated,
# erased; X2 holds none; Y holds 0': closed, 8' relocated, erased. 2
# blocks, 4 relocations; NAND 10 + 4. pages_stale (--remanence) is 1:
# X2's old page 8, outside the range; as a discard instead, 3.
REPLAY_S1 = ftlblk_trace([("write", 0, 32, ""), ("write", 64, 32, ""),
                          ("write", 64, 8, ""), ("write", 0, 8, ""),
                          ("secure-erase", 0, 8, "")])
REPLAY_S1_WANT = {"host_pages_written": 10, "nand_pages_written": 14,
                  "secure_erase_requests": 1, "secure_erase_sectors": 8,
                  "secure_erase_blocks": 2, "secure_erase_relocations": 4,
                  "secure_erase_pages_left": 0, "secure_erases": 1,
                  "erases": 2, "pages_stale": 1, "valid_pages": 7,
                  "gc_relocations": 0, "discard_requests": 0,
                  "pages_discarded": 0}
# Trace S2, partial pages: pages 0-3 (X), 0-1 again (Y {0', 1'}). Secure
# erase of sectors 4-11 (the second half of page 0, the first of page 1):
# no whole page; both partial pages hold data elsewhere: read-modify-
# written (host 8, rmw 2; Y full: {0', 1', 0'', 1''}). X holds old copies
# (pages 2, 3 relocated), Y too (0'', 1'' relocated): 2 blocks, 4
# relocations, nothing stale left.
REPLAY_S2 = ftlblk_trace([("write", 0, 32, ""), ("write", 0, 16, ""),
                          ("secure-erase", 4, 8, "")])
REPLAY_S2_WANT = {"host_pages_written": 8, "nand_pages_written": 12,
                  "rmw_pages": 2, "secure_erase_blocks": 2,
                  "secure_erase_relocations": 4, "erases": 2,
                  "pages_stale": 0, "valid_pages": 4}
# Trace S3 on 32 pages: pages 0-7, then 2 and 5 again; secure erase of
# pages 2-5. One FTL: blocks {0-3}, {4-7} (2 valid pages each relocated)
# and the open {2', 5'} erased: 3 blocks, 4 relocations. With --shards 2
# pages 0-3 are shard 0's and 4-7 shard 1's (stripes of a block): each
# shard erases its {0-3} block (2 relocations) and its open {2'} or {5'}:
# 4 blocks, and each shard counts a secure erase.
REPLAY_S3 = ftlblk_trace([("write", 0, 64, ""), ("write", 16, 8, ""),
                          ("write", 40, 8, ""),
                          ("secure-erase", 16, 32, "")])
SE3_ARGS = ["--logical-pages", 32] + SE_ARGS[2:]
REPLAY_S3_WANT = {
    1: {"secure_erase_blocks": 3, "secure_erase_relocations": 4,
        "secure_erases": 1, "erases": 3, "valid_pages": 4,
        "pages_stale": 0, "nand_pages_written": 14},
    2: {"secure_erase_blocks": 4, "secure_erase_relocations": 4,
        "secure_erases": 2, "erases": 4, "valid_pages": 4,
        "pages_stale": 0, "nand_pages_written": 14}}

# Trace S4, --shards 2, a range in a later stripe: pages 0-15 (shard 0:
# 0-3, 8-11 as its pages 0-7; shard 1: 4-7, 12-15), then 4 and 13 again
# (shard 1's open block {4', 13'}). Secure erase of page 13, shard 1's
# page 5: its block {12-15} (3 relocations) and the open one (4'
# relocated) are erased; the old page 4 in shard 1's block {4-7} is not
# of the range and stays (pages_stale 1). Only shard 1 is called.
REPLAY_S4 = ftlblk_trace([("write", 0, 128, ""), ("write", 32, 8, ""),
                          ("write", 104, 8, ""),
                          ("secure-erase", 104, 8, "")])
REPLAY_S4_WANT = {"secure_erase_blocks": 2, "secure_erase_relocations": 4,
                  "secure_erases": 1, "erases": 2, "pages_stale": 1,
                  "valid_pages": 15, "nand_pages_written": 22}


# Trace K: writes with placement classes (the module's class=N, ftlsim
# --placement-classes 3), 64 pages of 4 KiB in blocks of 4. Class 1 writes
# pages 0-3 (its first block, full), then page 4: that write finds the
# block full and closes it (class_blocks_filled 1) in a new one; class 0
# page 5; class 2 page 6 whole and page 7 partly (one read-modify-write);
# class 1 page 0 again, with fua, into its second block. Then a read.
# The module ends every record in class=N, 0 but on classed writes.
REPLAY_K = ftlblk_trace([("write", 0, 32, " class=1"),
                         ("write", 32, 8, " class=1"),
                         ("write", 40, 8, " class=0"),
                         ("write", 48, 12, " class=2"),
                         ("write", 0, 8, "fua class=1"),
                         ("read", 0, 64, " class=0")])
REPLAY_K_ARGS = ["--logical-pages", 64, "--pages-per-block", 4,
                 "--op-percent", 50, "--wl-threshold", 0,
                 "--placement-classes", 3]
REPLAY_K_WANT = {"class_pages_written": [1, 6, 2],
                 "class_blocks_filled": [0, 1, 0], "host_pages_written": 9,
                 "nand_pages_written": 9, "rmw_pages": 1, "valid_pages": 8,
                 "write_requests": 5, "placement_classes": 3}
# Trace AT, atomic writes (64 pages of 8 sectors, 4 pages a block):
#  1 write page 0: block 0 has room for 3 more          host 1
#  2 atomic write pages 1-4: 3 in block 0, 1 in the next free block,
#    mapped together                                    host 5, atomic 1
#  3 atomic write sectors 44-51: pages 5 and 6, both partial
#                                                       host 7, rmw 2
REPLAY_AT = ftlblk_trace([("write", 0, 8, ""),
                          ("write", 8, 32, "atomic"),
                          ("write", 44, 8, "fua|atomic class=0")])
REPLAY_AT_ARGS = REPLAY_K_ARGS[:-2]
REPLAY_AT_WANT = {"host_pages_written": 7, "nand_pages_written": 7,
                  "atomic_writes": 2, "atomic_pages_abandoned": 0,
                  "rmw_pages": 2, "valid_pages": 7, "write_requests": 3}
REPLAY_K_DUMP = [["1", "write", "0", "32", "class=1"],
                 ["2", "write", "32", "8", "class=1"],
                 ["3", "write", "40", "8"],
                 ["4", "write", "48", "12", "class=2"],
                 ["5", "write", "0", "8", "class=1"],
                 ["6", "read", "0", "64"]]


def iolog_as_ftlblk(text, full):
    """An iolog's requests as ftlblk_request events: trace_pipe lines
    (@full) or stripped ones."""
    out = []
    for n, ln in enumerate(text.splitlines()):
        f = ln.split()
        ops = {"write": "write", "read": "read", "trim": "discard"}
        if len(f) != 4 or f[1] not in ops:
            continue
        op = ops[f[1]]
        ev = "ftlblk0 op=%s sector=%d nr_sectors=%d flags=" % (
            op, int(f[2]) // SECTOR, int(f[3]) // SECTOR)
        if full:
            ev = ("  fio-%d  [001] d..1. %6d.%06d: ftlblk_request: " %
                  (100 + n, 17, n)) + ev
        out.append(ev)
    return "\n".join(out) + "\n"

def _dump(run, path, fmt, extra=()):
    p = run(["--trace", path, "--trace-format", fmt, "--trace-dump"] +
            list(extra), check=False)
    got = []
    for ln in p.stdout.splitlines():
        f = ln.split()
        got.append((int(f[0]), f[1], int(f[2]), int(f[3])))
    return p, got


def run_trace_tests(run, report, san=None, iolog_replay=None):
    with tempfile.TemporaryDirectory() as d:
        def write(name, text):
            path = os.path.join(d, name)
            with open(path, "w") as f:
                f.write(text)
            return path

        # -- parsers
        bp = write("sample.blkparse", BLKPARSE)
        for ev, want in sorted(BLKPARSE_WANT.items()):
            p, got = _dump(run, bp, "blkparse",
                           [] if ev == "D" else ["--blkparse-event", ev])
            report(p.returncode == 0 and got == want,
                   "blkparse, %s events: %d requests %s (want %s)%s" %
                   (ev, len(got), got, want, p.stderr.strip()))
        for name, fmt, text, want in (
                ("v2.iolog", "iolog", IOLOG2, IOLOG2_WANT),
                ("v3.iolog", "iolog", IOLOG3, IOLOG3_WANT),
                ("msr.csv", "msr", MSR, MSR_WANT)):
            p, got = _dump(run, write(name, text), fmt)
            report(p.returncode == 0 and got == want,
                   "%s parser (%s): %s (want %s)%s" %
                   (fmt, name, got, want, p.stderr.strip()))

        # -- bad lines: exit 1, FILE:LINE: reason
        for i, (fmt, text, line, words) in enumerate(BAD):
            path = write("bad%d.%s" % (i, fmt), text)
            p = run(["--logical-pages", 1024, "--pages-per-block", 16,
                     "--op-percent", 50, "--trace", path, "--trace-format",
                     fmt], check=False)
            err = p.stderr.strip()
            want = "%s:%d: " % (path, line)
            report(p.returncode == 1 and want in err and words in err and
                   "Sanitizer" not in err and not p.stdout,
                   "bad %s line %d (%s): exit %d, %s" %
                   (fmt, line, words, p.returncode, err))

        # -- replay counters, worked out by hand
        for label, text, args, want in (
                ("A (partial pages, discards, reads)", REPLAY_A,
                 REPLAY_A_ARGS, REPLAY_A_WANT),
                ("B (GC relocations)", REPLAY_B, REPLAY_B_ARGS,
                 REPLAY_B_WANT),
                ("C (partial write to a written page)", REPLAY_C,
                 REPLAY_A_ARGS, REPLAY_C_WANT)):
            path = write("replay%s.iolog" % label[0], text)
            p = run(args + ["--trace", path, "--trace-format", "iolog",
                            "--json", "--check"], check=False)
            j = json.loads(p.stdout) if p.returncode == 0 else {}
            bad = {k: (j.get(k), v) for k, v in want.items()
                   if j.get(k) != v}
            report(p.returncode == 0 and not bad,
                   "replay %s: %s%s" % (label, "all %d counters as worked "
                                        "out by hand" % len(want)
                                        if not bad else
                                        "got/want %s" % bad,
                                        p.stderr.strip()))
        # the same trace as blkparse D events and as MSR gives the same
        # result (writes and reads only: MSR has no discards)
        lines = []
        msr = []
        for n, ln in enumerate(REPLAY_B.splitlines()[2:-1]):
            f = ln.split()
            off, ln_ = int(f[3]), int(f[4])
            lines.append("  8,0 0 %d 0.%09d 1 D W %d + %d [fio]" %
                         (n + 1, n, off // SECTOR, ln_ // SECTOR))
            msr.append("%d,h,0,Write,%d,%d,1" % (n, off, ln_))
        lines.append("  8,0 0 99 1.0 1 D D 0 + 64 [blkdiscard]")
        j1 = json.loads(run(REPLAY_B_ARGS + [
            "--trace", write("b.blkparse", "\n".join(lines) + "\n"),
            "--trace-format", "blkparse", "--json"]).stdout)
        j2 = json.loads(run(REPLAY_B_ARGS + [
            "--trace", write("b.csv", "\n".join(msr) + "\n"),
            "--trace-format", "msr", "--json"]).stdout)
        keys = ("host_pages_written", "nand_pages_written",
                "gc_relocations", "erases", "pages_discarded")
        report(all(j1[k] == REPLAY_B_WANT[k] for k in keys) and
               all(j2[k] == REPLAY_B_WANT[k] for k in keys[:4]),
               "trace B as blkparse: %s; as MSR (no trim): %s" %
               ([j1[k] for k in keys], [j2[k] for k in keys[:4]]))

        # -- whole-page writes replay like the synthetic workload
        seq = ["fio version 2 iolog", "/dev/x add"]
        n = 4096
        for i in range(3 * n):
            seq.append("/dev/x write %d 4096" % ((i % n) * 4096))
        geo = ["--logical-pages", n, "--pages-per-block", 16,
               "--op-percent", 10, "--policy", "fifo"]
        jt = json.loads(run(geo + ["--trace", write("seq.iolog",
                                                    "\n".join(seq) + "\n"),
                                   "--trace-format", "iolog",
                                   "--json"]).stdout)
        js = json.loads(run(geo + ["--workload", "sequential",
                                   "--writes", 3, "--json"]).stdout)
        keys = ("host_pages_written", "nand_pages_written",
                "gc_relocations", "erases", "wl_relocations")
        report(all(jt[k] == js[k] for k in keys) and js["erases"] > 0,
               "3 sequential passes as a trace = --workload sequential "
               "--writes 3: %s vs %s" % ([jt[k] for k in keys],
                                         [js[k] for k in keys]))
        # ... and one trim of all 4096 pages goes to the core in batches of
        # 1024, as the module's unmap_pages() does
        jd = json.loads(run(geo + ["--trace", write(
            "seqtrim.iolog", "\n".join(seq) + "\n/dev/x trim 0 %d\n" %
            (n * 4096)), "--trace-format", "iolog", "--json"]).stdout)
        report(jd["pages_discarded"] == n and
               jd["valid_pages_discarded"] == n and jd["valid_pages"] == 0
               and jd["discard_calls"] == 4,
               "trim of all %d pages: %d discarded (%d held data), %d "
               "valid left, %d core calls (want 4 batches of 1024)" %
               (n, jd["pages_discarded"], jd["valid_pages_discarded"],
                jd["valid_pages"], jd["discard_calls"]))

        # -- command line
        p = run(["--trace", bp], check=False)
        report(p.returncode == 2 and "--trace-format" in p.stderr,
               "--trace without --trace-format: exit %d (want 2)" %
               p.returncode)
        p = run(["--trace", bp, "--trace-format", "blkparse",
                 "--writes", 2], check=False)
        report(p.returncode == 2, "--trace with --writes: exit %d (want 2)" %
               p.returncode)

        # -- sanitizer build replays every sample with ftl_check()
        if san:
            for name, fmt, args in (
                    ("sample.blkparse", "blkparse", []),
                    ("v2.iolog", "iolog", ["--size", "1M", "--pages-per-block", 4,
                                           "--op-percent", 25]),
                    ("msr.csv", "msr", ["--size", "4G",
                                        "--pages-per-block", 64]),
                    ("replayB.iolog", "iolog", REPLAY_B_ARGS),
                    ("seq.iolog", "iolog", geo)):
                p = run(args + ["--trace", os.path.join(d, name),
                                "--trace-format", fmt, "--check",
                                "--csv-interval", 16, "--json"],
                        binary=san, check=False)
                report(p.returncode == 0 and "runtime error" not in
                       p.stderr and "Sanitizer" not in p.stderr,
                       "ASan/UBSan replay of %s: exit %d %s" %
                       (name, p.returncode, p.stderr.strip()[-1000:]))

        test_ftlblk(run, report, san, write)
        if iolog_replay:
            test_iolog_replay(run, report, iolog_replay, d, write)


def _replay_json(run, args, path, fmt, binary=None):
    p = run(args + ["--trace", path, "--trace-format", fmt, "--json",
                    "--check"], binary=binary, check=False)
    return p, (json.loads(p.stdout) if p.returncode == 0 else {})


def _counters(run, report, label, args, path, want):
    p, j = _replay_json(run, args, path, "ftlblk")
    bad = {k: (j.get(k), v) for k, v in want.items() if j.get(k) != v}
    report(p.returncode == 0 and not bad,
           "replay %s: %s%s" % (label, "all %d counters as worked out by "
                                "hand" % len(want) if not bad else
                                "got/want %s" % bad, p.stderr.strip()))
    return j


# The sample's device: 2 MiB (its write at sector 2048 is in page 256).
SAMPLE_ARGS = ["--size", "2M", "--pages-per-block", 4, "--op-percent", 50]


def test_ftlblk(run, report, san, write):
    """The ftlblk format: parsing, write-zeroes, secure erase."""
    path = write("sample.ftlblk", FTLBLK)
    p, got = _dump(run, path, "ftlblk")
    report(p.returncode == 0 and got == FTLBLK_WANT,
           "ftlblk parser (trace_pipe lines, stripped lines, header, other "
           "events, flush): %s (want %s)%s" % (got, FTLBLK_WANT,
                                               p.stderr.strip()))
    p, j = _replay_json(run, SAMPLE_ARGS, path, "ftlblk")
    report(p.returncode == 0 and j["trace_lines"] == 17 and
           j["trace_lines_skipped"] == FTLBLK_SKIPPED and
           j["trace_requests"] == len(FTLBLK_WANT),
           "ftlblk sample: %s lines, %s skipped (want 17, %d), %s requests"
           % (j.get("trace_lines"), j.get("trace_lines_skipped"),
              FTLBLK_SKIPPED, j.get("trace_requests")))

    # trace A as ftlblk events, both forms: the iolog's counters
    for full in (True, False):
        form = "trace_pipe lines" if full else "stripped lines"
        _counters(run, report, "A as ftlblk %s" % form, REPLAY_A_ARGS,
                  write("a-%d.ftlblk" % full, iolog_as_ftlblk(REPLAY_A,
                                                              full)),
                  REPLAY_A_WANT)

    _counters(run, report, "Z1 (write-zeroes with unmap)", REPLAY_A_ARGS,
              write("z1.ftlblk", REPLAY_Z1), REPLAY_Z1_WANT)
    _counters(run, report, "Z2 (write-zeroes programming zeroes)",
              REPLAY_A_ARGS, write("z2.ftlblk", REPLAY_Z2), REPLAY_Z2_WANT)
    _counters(run, report, "S1 (secure erase of an overwritten page, "
              "--remanence)", SE_ARGS, write("s1.ftlblk", REPLAY_S1),
              REPLAY_S1_WANT)
    _, j = _replay_json(run, SE_ARGS, write("s1d.ftlblk", REPLAY_S1.replace(
        "secure-erase", "discard")), "ftlblk")
    report(j.get("pages_stale") == 3 and j.get("erases") == 0,
           "S1 with a discard instead: pages_stale %s (want 3: the range's "
           "two old copies stay), erases %s" % (j.get("pages_stale"),
                                                j.get("erases")))
    _counters(run, report, "S2 (secure erase of partial pages)", SE_ARGS,
              write("s2.ftlblk", REPLAY_S2), REPLAY_S2_WANT)
    s3 = write("s3.ftlblk", REPLAY_S3)
    for shards, want in sorted(REPLAY_S3_WANT.items()):
        _counters(run, report, "S3 (secure erase, --shards %d)" % shards,
                  SE3_ARGS + ["--shards", shards], s3, want)

    _counters(run, report, "S4 (secure erase in shard 1's second stripe)",
              SE3_ARGS + ["--shards", 2], write("s4.ftlblk", REPLAY_S4),
              REPLAY_S4_WANT)

    # placement classes: class=N of the module's writes
    k = write("k.ftlblk", REPLAY_K)
    p = run(["--trace", k, "--trace-format", "ftlblk", "--trace-dump"],
            check=False)
    got = [ln.split() for ln in p.stdout.splitlines()]
    report(p.returncode == 0 and got == REPLAY_K_DUMP,
           "ftlblk class=N: --trace-dump %s (want %s)%s" %
           (got, REPLAY_K_DUMP, p.stderr.strip()))
    _counters(run, report, "K (writes of placement classes 0-2)",
              REPLAY_K_ARGS, k, REPLAY_K_WANT)
    _counters(run, report, "K with 2 shards", REPLAY_K_ARGS[:4] +
              ["--op-percent", 100, "--placement-classes", 3, "--shards", 2],
              k, {"class_pages_written": [1, 6, 2], "host_pages_written": 9,
                  "nand_pages_written": 9})
    _counters(run, report, "K without its class fields (class 0)",
              REPLAY_K_ARGS, write("k0.ftlblk", REPLAY_K.replace(
                  " class=1", "").replace(" class=2", "")),
              {"class_pages_written": [9, 0, 0], "host_pages_written": 9})
    p = run(REPLAY_K_ARGS[:-1] + [2, "--trace", k, "--trace-format",
                                  "ftlblk"], check=False)
    report(p.returncode == 1 and "%s:4: write 48 + 12 class=2: placement "
           "class not configured" % k in p.stderr and not p.stdout,
           "K with --placement-classes 2: exit %d at line 4: %s" %
           (p.returncode, p.stderr.strip()))

    # atomic writes: one ftl_write_atomic() per request
    at = write("at.ftlblk", REPLAY_AT)
    _counters(run, report, "AT (atomic writes)", REPLAY_AT_ARGS, at,
              REPLAY_AT_WANT)
    _counters(run, report, "AT without its atomic flags", REPLAY_AT_ARGS,
              write("at0.ftlblk", REPLAY_AT.replace("fua|atomic", "fua")
                    .replace("=atomic", "=")),
              dict(REPLAY_AT_WANT, atomic_writes=0))
    cross = write("atx.ftlblk", ftlblk_trace([("write", 24, 16, "atomic")]))
    p = run(REPLAY_AT_ARGS + ["--shards", 2, "--trace", cross,
                              "--trace-format", "ftlblk"], check=False)
    report(p.returncode == 1 and "%s:1: write 24 + 16: the FTL core "
           "refused" % cross in p.stderr,
           "an atomic write across two shards' stripes is refused: exit %d "
           "%s" % (p.returncode, p.stderr.strip()))

    if san:
        for name, args in (("sample.ftlblk", SAMPLE_ARGS),
                           ("at.ftlblk", REPLAY_AT_ARGS),
                           ("z1.ftlblk", REPLAY_A_ARGS),
                           ("s2.ftlblk", SE_ARGS),
                           ("s3.ftlblk", SE3_ARGS + ["--shards", 2]),
                           ("k.ftlblk", REPLAY_K_ARGS)):
            p, _ = _replay_json(run, args, os.path.join(
                os.path.dirname(path), name), "ftlblk", binary=san)
            report(p.returncode == 0 and "runtime error" not in p.stderr
                   and "Sanitizer" not in p.stderr,
                   "ASan/UBSan replay of %s: exit %d %s" %
                   (name, p.returncode, p.stderr.strip()[-1000:]))


def test_iolog_replay(run, report, tool, d, write):
    """The guest tool on a regular file (BLKDISCARD needs a block device;
    on a file a trim punches a hole, which reads back as zeroes too)."""
    def tool_run(args):
        return subprocess.run([tool] + args, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)

    for name, text in (("a.iolog", REPLAY_A), ("v3.iolog", IOLOG3),
                       ("b.iolog", REPLAY_B)):
        path = write(name, text)
        t = tool_run([path, "--dry-run"])
        _, got = _dump(run, path, "iolog")
        mine = [tuple(int(x) if x.isdigit() else x for x in ln.split())
                for ln in t.stdout.splitlines()]
        report(t.returncode == 0 and mine == got and got,
               "iolog-replay --dry-run %s lists what ftlsim --trace-dump "
               "lists (%d requests); %s" % (name, len(got), t.stderr.strip()))

    # Replay A up to line 14 (sector 39 still holds data), plus a write
    # across pages, on a 64-page file; compare with a model of its contents.
    text = ("\n".join(REPLAY_A.splitlines()[:14]) +
            "\n/dev/x write 40960 5632\n")
    path = write("a14.iolog", text)
    img = os.path.join(d, "dev.img")
    size = 64 * 4096
    with open(img, "wb") as f:
        f.truncate(size)
    t = tool_run([path, "--redirect", img])
    model = bytearray(size)
    for n, ln in enumerate(text.splitlines(), 1):
        f = ln.split()
        if len(f) != 4 or f[1] not in ("write", "trim"):
            continue
        off, ln_ = int(f[2]), int(f[3])
        byte = (n % 255) + 1 if f[1] == "write" else 0
        model[off:off + ln_] = bytes([byte]) * ln_
    with open(img, "rb") as f:
        data = f.read()
    report(t.returncode == 0 and data == bytes(model) and any(model),
           "iolog-replay on a file: every sector holds what the log wrote "
           "(byte line%%255+1) or zeroes where it trimmed: exit %d%s" %
           (t.returncode, "" if data == bytes(model) else
            ", first difference at byte %d" %
            next(i for i in range(size) if data[i] != model[i])))

    bad = write("bad.iolog", IOLOG_OK_HEAD + "/dev/x write 0 4096\n"
                "/dev/x write 0 1000\n")
    t = tool_run([bad, "--redirect", img])
    report(t.returncode == 1 and "%s:4: " % bad in t.stderr,
           "iolog-replay, bad line 4: exit %d, %s" %
           (t.returncode, t.stderr.strip()))
    t = tool_run([write("short.iolog", IOLOG_OK_HEAD +
                        "/dev/x read %d 4096\n" % size), "--redirect", img])
    report(t.returncode == 1 and ":3: read" in t.stderr,
           "iolog-replay, read past the end of the file (line 3): exit %d, "
           "%s" % (t.returncode, t.stderr.strip()))
    t = tool_run([path])
    report(t.returncode == 1 and ":3: cannot open /dev/x" in t.stderr,
           "iolog-replay without --redirect opens the log's file: exit %d, "
           "%s" % (t.returncode, t.stderr.strip()))
