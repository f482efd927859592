# max_discard_sectors that is not a multiple of the flash page in sectors is accepted (the block layer rounds it down, to 0 below one page) => vm 20-errors
# file: module/config.c
# changes: 2
s/^\tif (cfg->val\[FTLBLK_MAX_DISCARD_SECTORS\] % spp) {$/\tif (0) {/
