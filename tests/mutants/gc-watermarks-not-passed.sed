# the gc_low_blocks/gc_high_blocks attributes never reach the FTL (defaults 2/2 instead) => vm 47-gc-policy
# file: module/config.c
# changes: 2
/^\tfcfg->gc_low_blocks = v\[FTLBLK_GC_LOW_BLOCKS\];$/d
/^\tfcfg->gc_high_blocks = v\[FTLBLK_GC_HIGH_BLOCKS\];$/d
