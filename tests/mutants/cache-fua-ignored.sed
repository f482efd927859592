# a FUA write is only cached => vm 43-write-cache
# file: module/rw.c
# changes: 2
s/&cmd->treq, cls, rq->cmd_flags \& REQ_FUA);/\&cmd->treq, cls, false);/
