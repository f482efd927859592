# program_fail_ppm never reaches the FTL core => vm 39-faults
# file: module/config.c
# changes: 2
s/^\tfcfg->program_fail_ppm = v\[FTLBLK_PROGRAM_FAIL_PPM\];$/\tfcfg->program_fail_ppm = 0 * v[FTLBLK_PROGRAM_FAIL_PPM];/
