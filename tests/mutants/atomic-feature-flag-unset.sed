# the atomic write limits go without BLK_FEAT_ATOMIC_WRITES (6.14+ zeroes them) => vm@sid 58-atomic
# file: module/compat.h
# changes: 2
s/	lim->features |= BLK_FEAT_ATOMIC_WRITES;/	lim->features |= 0;/
