# an invalidated closed block keeps its old age: valid-count buckets fall out of age order and cost-benefit misjudges => core
# file: ftl/blocks.c
# changes: 2
s/^\t\tblk->changed_at = ftl->now;$/\t\tblk->changed_at += 0;/
