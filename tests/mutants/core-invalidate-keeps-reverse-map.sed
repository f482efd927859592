# an overwritten or discarded page keeps its reverse-map entry: GC, which trusts the reverse map alone, relocates stale data over the current copy => core
# file: ftl/ftl.c
# changes: 1
/^static void invalidate_ppn(/,/^}/{/^\tset_recorded_lpn(ftl, ppn, FTL_UNMAPPED);$/d}
