# a partial-page write does not read the old page: the rest of the flash page becomes zeroes => vm 30-integrity
# file: module/main.c
# changes: 2
/^static blk_status_t write_chunk/,/^}/s/^\t\tread_page_locked(dev, lpn, buf);$/\t\tmemset(buf, 0, flash_page_size(dev));/
