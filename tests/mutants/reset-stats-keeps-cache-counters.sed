# reset_stats leaves each shard's write cache counters (cache_writebacks, pages_lost_at_power_cut) => vm 43-write-cache
# file: module/sysfs.c
# changes: 1
/^\t\tmemset(&sh->ctr, 0, sizeof(sh->ctr));$/d
