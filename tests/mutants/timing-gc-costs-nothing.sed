# GC relocations in the module cost no flash time => vm 41-timing
# file: module/callbacks.c
# changes: 2
/ftlblk_timing_relocate(sh->dev, sh->treq, ftlblk_device_ppn(sh, from),/,/ftlblk_device_ppn(sh, to));/d
