# secure erase relocates and erases blocks of a worn-out, read-only FTL => core
# file: ftl/sanitize.c
# changes: 2
s/^\tif (ftl->read_only)$/\tif (false)/
