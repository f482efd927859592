# ftl_destroy() of a half-created FTL releases every page of its zeroed map => core
# file: ftl/ftl.c
# changes: 2
s/^\tif (ftl->ready && ftl->ops && ftl->ops->release)$/\tif (ftl->ops \&\& ftl->ops->release)/
