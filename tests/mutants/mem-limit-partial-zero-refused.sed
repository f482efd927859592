# at mem_limit_mib a partial-page discard or write-zeroes of a held page gets no overwrite allowance: it fails with ENOSPC although it replaces a page by a page => vm 38-mem-limit
# file: module/discard.c
# changes: 2
s/err = ftlblk_pages_get(dev, &page, 1, GFP_NOIO, replaces);/err = ftlblk_pages_get(dev, \&page, 1, GFP_NOIO, 0);/
