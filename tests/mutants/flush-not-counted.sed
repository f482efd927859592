# FLUSH requests are completed but not counted in flush_requests => vm 68-flush
# file: module/main.c
# changes: 1
/^\t\tdev->ctr.flush_requests++;$/d
