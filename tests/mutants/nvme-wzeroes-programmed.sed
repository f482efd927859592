# write-zeroes without REQ_NOUNMAP programs zeroes on a discard=1 device => vm 53-nvmet
# file: module/ftlblk.h
# changes: 2
s/	return !(rq->cmd_flags \& REQ_NOUNMAP) \&\& dev->cfg.val\[FTLBLK_DISCARD\];/	return false;/
