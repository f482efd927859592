# discard counts pages_discarded but unmaps nothing (statistics counted, operation not applied) => core
# file: ftl/ftl.c
# changes: 3
s/^\ts64 unmapped = unmap_range(ftl, lpn, count);$/\ts64 unmapped = lpn > ftl->geo.logical_pages ||\n\t\t       count > ftl->geo.logical_pages - lpn ? -ERANGE : 0;/
