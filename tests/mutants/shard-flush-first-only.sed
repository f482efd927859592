# a flush writes back only the first shard's cache: the others' acknowledged updates are lost at the next power cut => vm 34-shards
# file: module/power.c
# changes: 2
s/^\tfor (i = 0; i < dev->dealing.nr \&\& !err; i++)$/\tfor (i = 0; i < 1 \&\& !err; i++)/
