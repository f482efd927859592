# releasing a data page forgets it instead of recycling or freeing it: overwritten/discarded data leaks (data_bytes still right) => vm 98-memleak
# file: module/callbacks.c
# changes: 2
/^static void ftlblk_release(/,/^}/s/^\t\t\tftlblk_release_page(sh, page);$/\t\t\t(void)page;/
