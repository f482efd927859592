# cost-benefit GC ignores the age of a block (u only: greedy in disguise) => core
# file: ftl/ftl.c
# changes: 2
s/^\t\tu64 age = ftl->now - blk->closed_at + 1;$/\t\tu64 age = 1 + 0 * blk->closed_at;/
