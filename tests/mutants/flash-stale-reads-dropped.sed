# the flash image shows a kept stale page as dropped (zeroes) => vm 51-remanence
# file: module/flash.c
# changes: 2
s/	} else if (info->state == FTL_PAGE_STALE \&\& sh->stale) {/	} else if (false) {/
