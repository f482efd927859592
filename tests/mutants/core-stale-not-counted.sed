# pages_stale misses pages relocated by GC => core
# file: ftl/gc.c
# changes: 2
s/^\tftl->stale_pages += r.moved;$/\tftl->stale_pages += 0;/
