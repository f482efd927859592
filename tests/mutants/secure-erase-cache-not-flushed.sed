# secure erase leaves the range's unmapping in the write cache => vm 51-remanence
# file: module/secure_erase.c
# changes: 2
s/	if (ftlblk_cache_on(dev)) {/	if (false) {/
