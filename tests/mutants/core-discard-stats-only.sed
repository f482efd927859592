# discard counts pages_discarded but unmaps nothing (statistics counted, operation not applied) => core
# file: ftl/ftl.c
# changes: 2
s/^\ts64 unmapped = unmap_range(ftl, lpn, count);$/\ts64 unmapped = lpn + count > ftl->geo.logical_pages ? -ERANGE : 0;/
