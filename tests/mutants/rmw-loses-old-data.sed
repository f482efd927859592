# a partial-page write does not read the old page: the rest of the flash page keeps stale bytes => vm 30-integrity
# file: module/rw.c
# changes: 2
/^static blk_status_t write_batch/,/^}/s/^\t\tif (ch->len != page_size)$/\t\tif (0)/
