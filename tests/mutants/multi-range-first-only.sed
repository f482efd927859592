# only the first range (bio) of a multi-range discard request is applied => vm 40-blkdiscard 71-conform-merge
# file: module/discard.c
# changes: 2
/bio_sectors(bio), ZERO_WHOLE);$/,/return sts;/s/^\t\tif (sts)$/\t\tif (1)/
