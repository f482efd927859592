# GC relocations in the module cost no flash time => vm 41-timing
# file: module/pages.c
# changes: 1
/ftlblk_timing_relocate(dev, from, to);/d
