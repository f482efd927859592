# sectors_zeroed also counts partial pages zeroed by write-zeroes, not only by discards => vm 50-full-discard
# file: module/discard.c
# changes: 2
/^static blk_status_t zero_partial_page/,/^}/s/^\tif (discard)$/\tif (discard || 1)/
