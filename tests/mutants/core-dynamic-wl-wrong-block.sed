# dynamic wear leveling opens the most worn free block for host writes (and the least for cold data) => core; ftlsim
# file: ftl/blocks.c
# changes: 2
s/u32 b = most_worn ? free_most_worn(ftl) : ftl->free.slots\[0\];/u32 b = most_worn ? ftl->free.slots[0] : free_most_worn(ftl);/
