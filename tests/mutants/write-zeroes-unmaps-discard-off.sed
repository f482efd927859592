# with discard=0, write-zeroes without REQ_NOUNMAP still unmaps pages (the device deallocates although discard is off) => vm 38-mem-limit
# file: module/discard.c
# changes: 2
s/^\t\t       !dev->cfg.val\[FTLBLK_DISCARD\];$/\t\t       false;/
