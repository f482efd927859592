# reads of unmapped pages are not counted in unmapped_reads => core
# file: ftl/ftl.c
# changes: 2
s/^\tif (\*ppn == FTL_UNMAPPED)$/\tif (0)/
