# GC relocates every class into class 0's GC block => core
# file: ftl/gc.c
# changes: 2
s/	return FTL_FRONTIER_GC(ftl->lpn_class ? ftl->lpn_class\[lpn\] : 0);/	return FTL_FRONTIER_GC(ftl->lpn_class \&\& lpn \&\& 0);/
