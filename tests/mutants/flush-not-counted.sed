# FLUSH requests are completed but not counted in flush_requests => vm 68-flush
# file: module/power.c
# changes: 1
/^\tftlblk_count(dev, FTLBLK_PC_FLUSH_REQUESTS, 1);$/d
