# a power cut drops only the first shard's write cache: the others' unflushed updates survive as if durable => vm 34-shards
# file: module/power.c
# changes: 2
s/^\t\tfor (i = 0; ftlblk_cache_on(dev) \&\& i < dev->dealing.nr; i++)$/\t\tfor (i = 0; ftlblk_cache_on(dev) \&\& i < 1; i++)/
