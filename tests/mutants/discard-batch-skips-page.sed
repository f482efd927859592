# a long discard skips one page between its 256-page batches (that page stays mapped) => vm 50-full-discard
# file: module/discard.c
# changes: 2
/^static blk_status_t unmap_pages/,/^}/s/^\t\tlpn += n;$/\t\tlpn += n + (count > n);/
