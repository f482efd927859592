# an emptied limbo carrier is dropped instead of reused or freed: every carrier page leaks => vm 98-memleak
# file: module/pages.c
# changes: 2
s/^\t\t\tpage = virt_to_page(c);$/\t\t\tpage = NULL; dev->limbo_pages--; continue;/
