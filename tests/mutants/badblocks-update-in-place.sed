# a badblocks update is made in the live list and undone if it fell short: requests see the part for a moment => vm 37-badblocks
# file: module/badblocks.c
# changes: 6
s/ftlblk_compat_bb_update(copy, start/ftlblk_compat_bb_update(bb, start/
s/bb_covered(copy, start, sectors)/bb_covered(bb, start, sectors)/
s/^\tif (\*done) {$/\tif (!*done) {/
