# reads without the lock ignore the cache and read flash => vm 43-write-cache
# file: module/rw.c
# changes: 2
s/ftlblk_cache_on(dev) \&\& ftlblk_cached_page_unlocked(sh, lpn, pagep))$/0)/
