# the wl_threshold attribute never reaches the FTL (it keeps the default 64) => vm 36-wear-leveling
# file: module/config.c
# changes: 1
/^\tfcfg->wl_threshold = v\[FTLBLK_WL_THRESHOLD\];$/d
