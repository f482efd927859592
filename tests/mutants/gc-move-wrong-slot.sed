# GC hands a relocated page to the wrong physical slot once in 61 moves (swaps it with its predecessor) => vm 30-integrity
# file: module/pages.c
# changes: 2
/^\tWRITE_ONCE(dev->data\[from\], 0);$/a\
\tif (to % 61 == 60 \&\& dev->data[to - 1])\
\t\tswap(dev->data[to], dev->data[to - 1]);
