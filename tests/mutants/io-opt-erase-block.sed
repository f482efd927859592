# optimal_io_size is one erase block again, which mkfs takes for a stripe width => vm 10-load
# file: module/device.c
# changes: 2
s/lim->io_opt = 0;/lim->io_opt = v[FTLBLK_PAGE_SIZE] * v[FTLBLK_PAGES_PER_BLOCK];/
