# a discard's lock hold runs on past the end of its shard's stripe: the next stripe's pages are unmapped in the wrong shard => vm 34-shards 85-trace-replay
# file: module/discard.c
# changes: 2
s/^\t\tu64 n = min3(count, batch, ftl_shard_run(&dev->dealing, lpn));$/\t\tu64 n = min(count, batch);/
