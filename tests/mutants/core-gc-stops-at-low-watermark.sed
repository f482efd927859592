# GC stops as soon as gc_low_blocks are free instead of going on to gc_high_blocks => core
# file: ftl/ftl.c
# changes: 2
s/^\twhile (ftl->nr_free < ftl->geo.gc_high_blocks) {$/\twhile (ftl->nr_free < ftl->geo.gc_low_blocks) {/
