# at mem_limit_mib a REQ_NOUNMAP write-zeroes gets one page of allowance at a time instead of every page it replaced: each page waits a grace period for the last one's old copy => vm 38-mem-limit
# file: module/discard.c
# changes: 2
s/^\t\t\t\t       replaced + replaces);$/\t\t\t\t       replaces);/
