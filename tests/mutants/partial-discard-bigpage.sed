# partial-page discard zeroes at the offset within the first 4 KiB only: wrong in 8/16 KiB flash pages => vm 42-discard-bigpages
# file: module/discard.c
# changes: 2
s/^\t\tmemset(buf + (first << SECTOR_SHIFT), 0, count << SECTOR_SHIFT);$/\t\tmemset(buf + ((first \& 7) << SECTOR_SHIFT), 0, count << SECTOR_SHIFT);/
