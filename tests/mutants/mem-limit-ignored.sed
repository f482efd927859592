# mem_limit_mib is ignored: writes take memory beyond it => vm 38-mem-limit
# file: module/pages.c
# changes: 2
s/^\tif (!dev->mem_limit_pages || !n)$/\tif (1)/
