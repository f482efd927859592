# a power cut leaves requests waiting for the modeled flash, and the flash work it abandoned still delays later ones => vm 46-inflight-cut
# file: module/power.c
# changes: 2
s/ftlblk_timing_end_pending(dev, true);/(void)dev;/
