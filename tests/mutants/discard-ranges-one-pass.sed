# a multi-range discard does each range whole (partial pages included) before the next, so the partial first page the block layer sends as its own range is rewritten before any page is freed: fails at the memory limit => vm 38-mem-limit
# file: module/discard.c
# changes: 2
s/^\(\t\t\t\t    bio_sectors(bio), \)ZERO_WHOLE);$/\1ZERO_ALL);/
