# an overwritten or discarded page keeps its reverse-map entry unmarked: GC, which trusts the reverse map alone, relocates stale data over the current copy => core
# file: ftl/ftl_impl.h
# changes: 1
/^static inline void ftl_mark_stale(/,/^}/{/^\t\tftl->p2l\[ppn\] |= FTL_STALE;$/d}
