# releasing a data page does not update data_pages: data_bytes wrong after overwrite/discard => vm 40-blkdiscard 50-full-discard
# file: module/callbacks.c
# changes: 1
/^static void ftlblk_release(/,/^}/{/^\t\tsh->data_pages--;$/d}
