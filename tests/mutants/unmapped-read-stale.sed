# a read of an unmapped page returns stale buffer contents instead of zeroes => vm 40-blkdiscard 48-unmapped-read 50-full-discard
# file: module/rw.c
# changes: 2
s/^\t\t\tmemset(addr, 0, n);$/\t\t\t;/
