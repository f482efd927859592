# write-zeroes is counted as a discard (sectors_zeroed, pages_discarded) => vm 50-full-discard
# file: module/discard.c
# changes: 2
/^\t\t\t  blk_rq_sectors(rq), false, rq->cmd_flags & REQ_NOUNMAP);$/s/false,/true,/
