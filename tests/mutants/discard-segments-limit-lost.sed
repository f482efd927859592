# max_discard_segments is not set on the queue (stays 1): no multi-range discards => vm 10-load 71-conform-merge
# file: module/device.c
# changes: 1
/^\tlim->max_discard_segments = v\[FTLBLK_MAX_DISCARD_SEGMENTS\];$/d
