# the atomic write boundary is the whole stripe, a power of two or not => vm@sid 58-atomic
# file: module/config.c
# changes: 2
s/		    (1U << __ffs(v\[FTLBLK_PAGES_PER_BLOCK\]));/		    v[FTLBLK_PAGES_PER_BLOCK];/
