# write-zeroes is counted but not applied: the data stays => vm 50-full-discard
# file: module/discard.c
# changes: 2
s/^\treturn zero_range(dev, blk_mq_rq_to_pdu(rq), blk_rq_pos(rq),$/\treturn BLK_STS_OK \&\& zero_range(dev, blk_mq_rq_to_pdu(rq), blk_rq_pos(rq),/
