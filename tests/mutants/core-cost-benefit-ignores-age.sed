# cost-benefit GC ignores the age of a block (u only: greedy in disguise) => core
# file: ftl/gc.c
# changes: 2
s/^\t\tage = ftl->now - ftl->blocks\[b\].changed_at + 1;$/\t\tage = 1 + 0 * ftl->blocks[b].changed_at;/
