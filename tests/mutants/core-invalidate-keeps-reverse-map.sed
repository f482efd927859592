# an overwritten or discarded page keeps its reverse-map entry: GC, which trusts the reverse map alone, relocates stale data over the current copy => core
# file: ftl/blocks.c
# changes: 1
/^void ftl_invalidate_ppn(/,/^}/{/^\tftl_set_recorded_lpn(ftl, ppn, FTL_UNMAPPED);$/d}
