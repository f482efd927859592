# remanence=1 frees a superseded page at once, as remanence=0 does => vm 51-remanence
# file: module/callbacks.c
# changes: 2
s/		if (sh->stale)$/		if (false)/
