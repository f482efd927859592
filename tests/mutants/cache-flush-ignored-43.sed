# a flush writes nothing back (as cache-flush-ignored) => vm 43-write-cache
# file: module/power.c
# changes: 2
s/work = ftlblk_cache_on(dev) \&\& dev->cache.entries;/work = false;/
