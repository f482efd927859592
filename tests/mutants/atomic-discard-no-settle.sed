# a discard or write-zeroes of a cached atomic write's page replaces that page alone, without writing the unit back first => vm@sid 58-atomic
# file: module/store.c
# changes: 2
s/^		err = settle_unit(sh, lpn, treq);$/		err = 0;/
