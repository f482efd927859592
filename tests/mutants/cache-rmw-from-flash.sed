# a partial write merges with the flash copy, not the cached one => vm 43-write-cache
# file: module/store.c
# changes: 2
s/if (ftlblk_cache_on(sh->dev) \&\& ftlblk_cached_page(sh, lpn, \&page))$/if (false)/
