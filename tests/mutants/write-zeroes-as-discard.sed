# write-zeroes is counted as a discard (sectors_zeroed, pages_discarded) => vm 50-full-discard
# file: module/discard.c
# changes: 2
s/^\(\t\t\t  blk_rq_sectors(rq), \)false, nounmap, ZERO_ALL);$/\1true, nounmap, ZERO_ALL);/
