# the atomic write cap takes a shard's whole stripe, a power of two or not: a write in an aligned window of the largest crosses into the next stripe => vm@sid 58-atomic
# file: module/config.c
# changes: 2
s/	pages = min_t(u64, pages, (1U << __ffs(v\[FTLBLK_PAGES_PER_BLOCK\])));/	pages = min_t(u64, pages, v[FTLBLK_PAGES_PER_BLOCK]);/
