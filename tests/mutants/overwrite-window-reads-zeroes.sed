# a lock-free read that meets an overwrite between the old page's release and the new page's store returns zeroes instead of locking => vm 72-conform-race 49-partial-race
# file: module/rw.c
# changes: 2
s/^\tif (ftl_lookup_unlocked(sh->ftl, lpn) != FTL_UNMAPPED)$/\tif (0)/
