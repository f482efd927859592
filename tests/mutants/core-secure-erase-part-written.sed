# a secure erase that GC refuses leaves the block it closed early closed and part written => core
# file: ftl/sanitize.c
# changes: 2
s/^\t\t\tif (blk->state == FTL_BLOCK_CLOSED)$/\t\t\tif (false)/
