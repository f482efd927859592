# removal frees every data page by ftl_destroy()'s releases: one RCU callback each, no reschedule in the loop => vm 57-remove-large
# file: module/device.c
# changes: 2
s/ftlblk_pages_free_mapped(sh, geo.logical_pages);/;/
