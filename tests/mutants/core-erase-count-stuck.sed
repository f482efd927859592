# erasing a block does not increment its erase count => core
# file: ftl/ftl.c
# changes: 1
/^\tblk->erase_count++;$/d
