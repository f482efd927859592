# off-by-one at the device end in the core: ftl_write accepts lpn == logical_pages => core
# file: ftl/ftl.c
# changes: 2
/^int ftl_write(/,/^}/s/^\tif (lpn >= ftl->geo.logical_pages)$/\tif (lpn > ftl->geo.logical_pages)/
