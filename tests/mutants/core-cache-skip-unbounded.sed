# the cache steps past every stale ring slot in one call, however many FUA writes left, under the host's lock => core
# file: ftl/cache.c
# changes: 2
s/ \&\& skipped < FTL_CACHE_SKIP_MAX;$/;/
