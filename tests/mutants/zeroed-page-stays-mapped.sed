# a page that a partial discard leaves all zeroes is programmed instead of unmapped => vm 40-blkdiscard
# file: module/discard.c
# changes: 2
s/^\t\tif (keep_mapped || memchr_inv(buf, 0, ftlblk_page_bytes(dev))) {$/\t\tif (keep_mapped || 1) {/
