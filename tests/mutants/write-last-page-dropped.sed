# the last flash page of a multi-page write request is silently dropped => vm 30-integrity 40-blkdiscard
# file: module/rw.c
# changes: 2
/^static blk_status_t ftlblk_write/,/^}/{/^\t\tn = next_batch(dev, &pos, &left, chunks, &sh);$/a\
\t\tif (!left \&\& nr_pages > 1)\
\t\t\tn--;
}
