# the FTL statistics are the first shard's, not the device's => vm 34-shards 85-trace-replay
# file: module/stats.c
# changes: 2
s/^\tfor (i = 0; i < dev->dealing.nr; i++) {$/\tfor (i = 0; i < 1; i++) {/
