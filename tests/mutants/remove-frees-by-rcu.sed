# removal frees every data page by ftl_destroy()'s releases: one RCU callback each, no reschedule in the loop => vm 57-remove-large
# file: module/device.c
# changes: 2
s/freed = ftlblk_pages_free_table(dev, sh->data, geo.logical_pages);/freed = 0;/
