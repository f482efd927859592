# GC stops as soon as gc_low_blocks are free instead of climbing on to gc_high_blocks => core
# file: ftl/gc.c
# changes: 2
s/^\tu32 target = ftl->free.nr + FTL_GC_GAIN_PER_CALL, fruitless = 0;$/\tu32 target = 0 * ftl->free.nr + FTL_GC_GAIN_PER_CALL, fruitless = 0;/
