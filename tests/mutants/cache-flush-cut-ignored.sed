# a flush queued before a power cut and restore writes back what is left and succeeds: fsync reports lost data as safe => vm 46-inflight-cut
# file: module/cache.c
# changes: 2
s/if (dev->power_off || dev->cuts_seen != cmd->gen)/if (dev->power_off)/
