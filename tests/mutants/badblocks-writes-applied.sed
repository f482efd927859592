# a write touching a bad sector is applied (only reads and write-zeroes are checked) => vm 37-badblocks
# file: module/badblocks.c
# changes: 1
/^\tcase REQ_OP_WRITE:$/d
