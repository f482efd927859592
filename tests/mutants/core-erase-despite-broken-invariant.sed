# a victim that still holds mapped data is erased anyway (the warning alone) => core
# file: ftl/blocks.c
# changes: 2
s/^\tif (ftl_broken(ftl, blk->valid != 0)) {$/\tif (ftl_broken(ftl, blk->valid != 0) \&\& 0) {/
