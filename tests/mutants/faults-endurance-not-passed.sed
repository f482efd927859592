# the endurance parameter never reaches the FTL core => vm 39-faults
# file: module/config.c
# changes: 2
s/^\tfcfg->endurance = v\[FTLBLK_ENDURANCE\];$/\tfcfg->endurance = 0 * v[FTLBLK_ENDURANCE];/
