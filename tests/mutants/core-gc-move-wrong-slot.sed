# GC tells the data store a wrong destination page once in a while => core
# file: ftl/gc.c
# changes: 2
s/^\t\t\tmove(ctx, r->from + i, r->to + r->moved);$/\t\t\tmove(ctx, r->from + i, (r->to + r->moved) ^ (r->moved == 7));/
