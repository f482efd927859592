# the cache writes back from the newest end => core
# file: ftl/cache.c
# changes: 2
s/u32 at = c->ring\[c->head % c->capacity\];/u32 at = c->ring[(c->tail - 1) % c->capacity];/
