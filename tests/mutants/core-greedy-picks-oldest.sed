# GC victim policy wrong: greedy picks the oldest closed block (FIFO) => core; ftlsim
# file: ftl/gc.c
# changes: 2
/^\tdefault:$/,/^\t}$/s/^\t\treturn pick_greedy(ftl);$/\t\treturn pick_greedy(ftl) == FTL_NONE ? FTL_NONE : ftl->closed.head;/
