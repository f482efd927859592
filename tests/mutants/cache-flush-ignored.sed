# a flush writes nothing back: the device ignores FLUSH => vm 86-crash
# file: module/power.c
# changes: 2
s/^\t\twork = sh->cache.entries;$/\t\twork = false;/
