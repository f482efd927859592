# the pool recycles released pages that a reader still pins: the reader copies a page being overwritten => vm 72-conform-race
# file: module/pages.c
# changes: 2
s/^\t\tif (page_ref_count(pages\[i\]) == 1 \&\& excess <= 0 \&\&$/\t\tif (page_ref_count(pages[i]) >= 1 \&\& excess <= 0 \&\&/
