# blk-mq's timeout ends a polled request whose modeled time has already come with ETIMEDOUT, although it was not late (its submitter had not polled yet) => vm 46-inflight-cut
# file: module/complete.c
# changes: 2
s/if (cmd->treq.done <= ktime_get_ns()) {/if (false) {/
