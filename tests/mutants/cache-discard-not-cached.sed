# discards bypass the cache: durable before any flush => vm 43-write-cache
# file: module/store.c
# changes: 2
/^int ftlblk_store_unmap/,/^}/s/	if (!ftlblk_cache_on(sh->dev))$/	if (true)/
