# partial-page discard does not zero the covered sectors (write-zeroes still does) => vm 40-blkdiscard
# file: module/discard.c
# changes: 1
s/^\t\tmemset(buf + (first << SECTOR_SHIFT), 0, count << SECTOR_SHIFT);$/\t\tif (!discard)\n&/
