# FLUSH requests are completed but not counted in flush_requests => vm 68-flush
# file: module/power.c
# changes: 1
/^\tdev->ctr.flush_requests++;$/d
