# write-zeroes is counted but not applied: the data stays => vm 50-full-discard
# file: module/main.c
# changes: 2
s/^\treturn zero_range(dev, blk_rq_pos(rq), blk_rq_sectors(rq), false,$/\treturn BLK_STS_OK \&\& zero_range(dev, blk_rq_pos(rq), blk_rq_sectors(rq), false,/
