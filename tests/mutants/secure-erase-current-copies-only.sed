# secure erase finds only the valid copies of the range, not the stale ones => core; vm 51-remanence
# file: ftl/sanitize.c
# changes: 2
s/u32 l = ppn_recorded_lpn(ftl, first + i);/u32 l = ppn_owner(ftl, first + i);/
