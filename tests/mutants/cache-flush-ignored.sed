# a flush writes nothing back: the device ignores FLUSH => vm 86-crash
# file: module/power.c
# changes: 2
s/^\twork = dev->cache.entries;$/\twork = false;/
