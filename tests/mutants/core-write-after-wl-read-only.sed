# a write whose wear leveling retired the last spare block succeeds on the read-only FTL => core
# file: ftl/ftl.c
# changes: 2
/Wear leveling's erase may have retired/{n;s/^\tif (ftl->read_only)$/\tif (false)/}
