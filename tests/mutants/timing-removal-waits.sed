# hot removal waits for every request's modeled completion => vm 46-inflight-cut
# file: module/device.c
# changes: 2
s/ftlblk_timing_end_pending(dev, false);/(void)dev;/
