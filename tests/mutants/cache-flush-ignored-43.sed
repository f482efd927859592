# a flush writes nothing back (as cache-flush-ignored) => vm 43-write-cache
# file: module/power.c
# changes: 2
s/^\t\twork = sh->cache.entries;$/\t\twork = false;/
