# a partial-page write does not read the old page: the rest of the flash page keeps stale bytes => vm 30-integrity
# file: module/rw.c
# changes: 2
s/^	if (ch->len != ftlblk_page_bytes(sh->dev))$/	if (0)/
