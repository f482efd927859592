# discard_ranges counts requests, not the ranges in them => vm 40-blkdiscard 71-conform-merge
# file: module/discard.c
# changes: 2
s/^\t\tdev->ctr.discard_ranges++;$/\t\tdev->ctr.discard_ranges = dev->ctr.discard_requests;/
