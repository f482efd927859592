# poll_queues makes no poll queue: polled submissions wait for an hrtimer like any other => vm 41-timing
# file: module/device.c
# changes: 2
s/^\tset->nr_maps = poll ? HCTX_MAX_TYPES : 1;$/\tset->nr_maps = 1;/
