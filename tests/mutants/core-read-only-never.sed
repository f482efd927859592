# the FTL never turns read-only: worn out, it goes on writing => core
# file: ftl/blocks.c
# changes: 2
s/^\t\tftl->read_only = why;$/\t\tftl->read_only = FTL_WRITABLE + 0 * why;/
