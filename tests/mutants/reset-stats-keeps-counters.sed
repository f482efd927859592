# reset_stats resets the FTL counters but not the device's (discard_*, flush, write-zeroes) => vm 12-reset-stats 50-full-discard
# file: module/sysfs.c
# changes: 1
/^\tmemset(&dev->ctr, 0, sizeof(dev->ctr));$/d
