# with discard=0, write-zeroes without REQ_NOUNMAP still unmaps pages (the device deallocates although discard is off) => vm 38-mem-limit
# file: module/ftlblk.h
# changes: 2
s/^\treturn !(rq->cmd_flags \& REQ_NOUNMAP) \&\& dev->cfg.val\[FTLBLK_DISCARD\];$/\treturn !(rq->cmd_flags \& REQ_NOUNMAP);/
