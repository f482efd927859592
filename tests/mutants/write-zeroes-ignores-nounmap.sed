# write-zeroes ignores REQ_NOUNMAP: BLKZEROOUT unmaps pages instead of programming zeroes => vm 50-full-discard
# file: module/ftlblk.h
# changes: 2
s/^\treturn !(rq->cmd_flags \& REQ_NOUNMAP) \&\& dev->cfg.val\[FTLBLK_DISCARD\];$/\treturn dev->cfg.val[FTLBLK_DISCARD];/
