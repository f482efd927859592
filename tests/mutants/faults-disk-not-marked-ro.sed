# at the end of life the disk is not marked read-only => vm 39-faults
# file: module/wearout.c
# changes: 2
s/set_disk_ro(dev->disk, true);/set_disk_ro(dev->disk, false);/
