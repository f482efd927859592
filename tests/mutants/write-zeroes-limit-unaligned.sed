# max_write_zeroes_sectors is not whole flash pages: the block layer splits inside a page => vm 10-load
# file: module/device.c
# changes: 2
s/lim->max_write_zeroes_sectors = rounddown(UINT_MAX >> SECTOR_SHIFT,$/lim->max_write_zeroes_sectors = (UINT_MAX >> SECTOR_SHIFT) + 0 * (/
