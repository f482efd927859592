# a write into a cached atomic write's pages replaces them without writing the unit back first => vm@sid 58-atomic
# file: module/store.c
# changes: 2
s/	return n ? writeback_unit(sh, first, n, treq) : 0;/	return n \&\& first \&\& 0;/
