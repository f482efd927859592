# a read without the lock uses the page it pinned without checking the mapping still holds: a page released and reused meanwhile is read => vm 72-conform-race
# file: module/rw.c
# changes: 2
/^static bool pin_unlocked/,/^}/s/^\t\tif (ftl_lookup_unlocked(dev->ftl, lpn) != ppn ||$/\t\tif (0 \&\& ftl_lookup_unlocked(dev->ftl, lpn) != ppn \&\&/
