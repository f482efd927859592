# ftlblk_request never flags a write-zeroes that unmaps: replay programs its pages => vm 85-trace-replay
# file: module/queue.c
# changes: 2
s/		flags |= FTLBLK_TRACE_UNMAP;/		flags |= 0;/
