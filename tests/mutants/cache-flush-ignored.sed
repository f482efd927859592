# a flush writes nothing back: the device ignores FLUSH => vm 86-crash
# file: module/power.c
# changes: 2
s/work = ftlblk_cache_on(dev) \&\& dev->cache.entries;/work = false;/
