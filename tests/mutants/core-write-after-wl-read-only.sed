# a write whose wear leveling retired the last spare block succeeds on the read-only FTL => core
# file: ftl/wear.c
# changes: 2
s/^\tif (!err \&\& ftl->read_only)$/\tif (false)/
