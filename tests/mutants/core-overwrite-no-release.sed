# an overwrite does not release the old physical page (its memory would leak) => core
# file: ftl/ftl.c
# changes: 2
/^static void supersede(/,/^}/s/^\t\tif (ftl->ops && ftl->ops->release)$/\t\tif (0)/
