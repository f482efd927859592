# dynamic wear leveling opens the most worn free block for host writes (and the least for cold data) => core; ftlsim
# file: ftl/ftl.c
# changes: 2
s/most_worn ? free_most_worn_pos(ftl) : 0)/most_worn ? 0 : free_most_worn_pos(ftl))/
