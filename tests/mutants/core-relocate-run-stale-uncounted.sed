# a run of relocations leaves its victim's stale count alone: the erase then forgets fewer stale pages than it removed => core
# file: ftl/gc.c
# changes: 2
s/^\tvictim->stale += r.moved;$/\tvictim->stale += 0;/
