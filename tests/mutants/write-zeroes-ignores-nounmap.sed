# write-zeroes ignores REQ_NOUNMAP: BLKZEROOUT unmaps pages instead of programming zeroes => vm 50-full-discard
# file: module/discard.c
# changes: 2
s/^\tbool nounmap = (rq->cmd_flags & REQ_NOUNMAP) ||$/\tbool nounmap = 0 ||/
