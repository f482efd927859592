# a power cut, removal or timeout leaves a polled timed request on its poll list until its modeled end => vm 46-inflight-cut
# file: module/complete.c
# changes: 2
s/^\tif (rq->mq_hctx->type != HCTX_TYPE_POLL)$/\tif (1)/
