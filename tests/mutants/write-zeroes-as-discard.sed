# write-zeroes is counted as a discard (sectors_zeroed, pages_discarded) => vm 50-full-discard
# file: module/main.c
# changes: 2
/^\treturn zero_range(dev, blk_rq_pos(rq), blk_rq_sectors(rq), false,$/s/false,$/true,/
