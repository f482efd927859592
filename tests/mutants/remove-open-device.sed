# power=0 removes a device that is open or mounted instead of EBUSY => vm 10-load 20-errors
# file: module/device.c
# changes: 2
s/^\tif (disk_openers(disk) && !force) {$/\tif (0 \&\& disk_openers(disk) \&\& !force) {/
