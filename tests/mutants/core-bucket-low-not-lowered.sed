# a block joining a bucket below bucket_low leaves the bound: greedy picks a fuller victim than the emptiest => core
# file: ftl/blocks.c
# changes: 2
s/^\tif (valid < ftl->bucket_low)$/\tif (valid < ftl->bucket_low \&\& 0)/
