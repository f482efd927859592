# power_cut_mode random keeps every cached update => vm 43-write-cache
# file: module/power.c
# changes: 2
s/return dev->cut_mode == FTLBLK_CUT_RANDOM \&\& (prandom_u32_state(rnd) \& 1);/return dev->cut_mode == FTLBLK_CUT_RANDOM;/
