# the gc_policy attribute is shown but never reaches the FTL (always greedy) => vm 47-gc-policy
# file: module/config.c
# changes: 1
/^\tfcfg->gc_policy = v\[FTLBLK_GC_POLICY\];$/d
