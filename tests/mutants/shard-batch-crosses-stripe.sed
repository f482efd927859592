# a read or write batch runs on past the end of its shard's stripe: the next stripe's pages land in the wrong shard => vm 34-shards 85-trace-replay
# file: module/rw.c
# changes: 2
s/^\t\t\tftl_shard_run(&dev->dealing, lpn));$/\t\t\tFTLBLK_BATCH_PAGES);/
