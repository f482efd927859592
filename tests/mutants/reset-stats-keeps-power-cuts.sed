# reset_stats leaves power_cuts => vm 43-write-cache
# file: module/sysfs.c
# changes: 2
s/^\tWRITE_ONCE(dev->power_cuts, 0);$/\tWRITE_ONCE(dev->power_cuts, dev->power_cuts);/
