# pages_stale misses pages relocated by GC => core
# file: ftl/gc.c
# changes: 2
s/		ftl_mark_stale(ftl, from);/		if (ftl->p2l) ftl->p2l[from] |= FTL_STALE;/
