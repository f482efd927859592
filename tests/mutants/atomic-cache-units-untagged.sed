# the write cache forgets that a cached atomic write is one unit: a power cut in random mode keeps some of its pages => vm@sid 58-atomic
# file: module/store.c
# changes: 2
s/		sh->cached_unit\[lpn + i\] = i + 1;/		sh->cached_unit[lpn + i] = 0;/
