# a victim put back after an aborted collection keeps its old age at its bucket's tail => core
# file: ftl/gc.c
# changes: 2
s/^\t\tftl_close_block(ftl, b);$/\t\tftl_closed_insert(ftl, b);/
