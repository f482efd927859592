# the last flash page of a multi-page write request is silently dropped => vm 30-integrity 40-blkdiscard
# file: module/rw.c
# changes: 2
/^static blk_status_t ftlblk_write/,/^}/{/^\t\tsts = write_batch(sh, &c, chunks, n, cmd->pages + used,$/i\
\t\tif (!left \&\& nr_pages > 1)\
\t\t\tn--;
}
