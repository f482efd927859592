# a cut that dropped completed writes leaves no error for the next flush: an fsync after the restore succeeds although acknowledged data is gone => vm 43-write-cache
# file: module/power.c
# changes: 2
s/WRITE_ONCE(dev->lost_cycle, dev->cuts_seen);/;/
