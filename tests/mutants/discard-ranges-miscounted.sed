# discard_ranges counts requests, not the ranges in them => vm 40-blkdiscard 71-conform-merge
# file: module/discard.c
# changes: 3
/^\t\tftlblk_count(dev, FTLBLK_PC_DISCARD_RANGES, 1);$/d
s/^\tftlblk_count(dev, FTLBLK_PC_DISCARD_REQUESTS, 1);$/\tftlblk_count(dev, FTLBLK_PC_DISCARD_REQUESTS, 1); ftlblk_count(dev, FTLBLK_PC_DISCARD_RANGES, 1);/
