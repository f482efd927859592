# an operation ftlblk does not serve completes with success instead of BLK_STS_NOTSUPP => vm 45-notsupp
# file: module/queue.c
# changes: 2
s/^\t\tsts = BLK_STS_NOTSUPP;$/\t\tsts = BLK_STS_OK;/
