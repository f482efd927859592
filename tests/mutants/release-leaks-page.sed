# releasing a data page forgets put_page(): overwritten/discarded data leaks (data_bytes still right) => vm 98-memleak
# file: module/main.c
# changes: 1
/^static void ftlblk_release_page/,/^}/{/^\t\tput_page(dev->data\[ppn\]);$/d}
