# the last flash page of a multi-page write request is silently dropped => vm 30-integrity 40-blkdiscard
# file: module/main.c
# changes: 2
/^\t\tu64 lpn = pos >> dev->page_shift;$/{n;a\
\t\tif (write \&\& left == len \&\& blk_rq_bytes(rq) > page_size)\
\t\t\tbreak;
}
