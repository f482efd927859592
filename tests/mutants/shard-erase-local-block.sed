# the erase tracepoint reports the block number inside its shard, not the device's => vm 34-shards
# file: module/callbacks.c
# changes: 2
s/trace_ftlblk_erase(sh->dev->disk, sh->first_block + block, erase_count);/trace_ftlblk_erase(sh->dev->disk, block, erase_count);/
