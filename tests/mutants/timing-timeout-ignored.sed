# blk-mq's timeout always grants more time: a request waits for its modeled completion however long => vm 46-inflight-cut
# file: module/main.c
# changes: 2
s/return ftlblk_timing_timeout(rq);/return BLK_EH_RESET_TIMER;/
