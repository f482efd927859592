# erasing a block does not increment its erase count => core
# file: ftl/blocks.c
# changes: 1
/^\tblk->erase_count++;$/d
