# a sub-page write into a page that holds nothing keeps whatever its new data page held (another logical page's old data from the pool) around the written sectors => vm 48-unmapped-read
# file: module/store.c
# changes: 4
s/^\t\tmemset(buf, 0, keep_off);$/\t\t;/
s/^\t\tmemset(buf + keep_end, 0, page_size - keep_end);$/\t\t;/
