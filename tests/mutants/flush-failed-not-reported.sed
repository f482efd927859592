# a flush that failed while the power was off does not count as the report: the first flush after the restore fails as well => vm 43-write-cache
# file: module/ftlblk.h
# changes: 2
s/^\t\tftlblk_flush_failed(dev, gen);$/\t\t;/
