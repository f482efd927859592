# off-by-one at the device end in the core: ftl_write accepts lpn == logical_pages => core
# file: ftl/ftl.c
# changes: 2
s/^\tif (lpn >= ftl->geo.logical_pages || n > ftl->geo.logical_pages - lpn)$/\tif (lpn > ftl->geo.logical_pages || n > ftl->geo.logical_pages - lpn + 1)/
