# one GC call collects all the way to gc_high_blocks (unbounded work in one write) => core
# file: ftl/gc.c
# changes: 2
s/^\tu32 target = ftl->free.nr + FTL_GC_GAIN_PER_CALL, fruitless = 0;$/\tu32 target = ftl->free.nr + FTL_GC_GAIN_PER_CALL + 1024, fruitless = 0;/
