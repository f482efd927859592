# at mem_limit_mib stale pages are not erased to make room: writes fail => vm 51-remanence
# file: module/device.c
# changes: 2
s/		dev->reclaim = ftlblk_reclaim_stale;/		dev->reclaim = NULL;/
