# GC tells the data store a wrong destination page once in a while => core
# file: ftl/gc.c
# changes: 2
s/^\t\t\tftl->ops->move(ftl->ctx, from, to);$/\t\t\tftl->ops->move(ftl->ctx, from, ftl->now % 61 ? to : to ^ 1);/
