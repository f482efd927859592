# write-zeroes ignores REQ_NOUNMAP: BLKZEROOUT unmaps pages instead of programming zeroes => vm 50-full-discard
# file: module/discard.c
# changes: 2
s/^\(\t\t\t  blk_rq_sectors(rq), false, \)rq->cmd_flags & REQ_NOUNMAP);$/\1false);/
