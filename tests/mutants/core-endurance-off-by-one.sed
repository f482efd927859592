# a block survives one erase more than its endurance => core
# file: ftl/blocks.c
# changes: 2
s/blk->erase_count >= ftl->cfg.endurance)/blk->erase_count > ftl->cfg.endurance)/
