# blk-mq's timeout always grants more time: a request waits for its modeled completion however long => vm 46-inflight-cut
# file: module/complete.c
# changes: 2
s/^\tif (!dev->timing_on || !stop_waiting(rq))$/\tif (true)/
