# blk-mq's timeout always grants more time: a request waits for its modeled completion however long => vm 46-inflight-cut
# file: module/complete.c
# changes: 2
s/if (!dev->timing_on || hrtimer_try_to_cancel(\&cmd->timer) != 1)/if (true)/
