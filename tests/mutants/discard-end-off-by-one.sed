# off-by-one at the device end: a discard or write-zeroes ending at the last sector fails => vm 40-blkdiscard 50-full-discard
# file: module/discard.c
# changes: 2
s/^\tif (end > get_capacity(dev->disk) || end < sector)$/\tif (end >= get_capacity(dev->disk) || end < sector)/
