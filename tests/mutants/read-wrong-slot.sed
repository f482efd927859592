# a lock-free read takes the page of the logical page before its own once in 61 => vm 30-integrity
# file: module/rw.c
# changes: 2
s/^\tframe = smp_load_acquire(&sh->data\[lpn\]);$/\tframe = smp_load_acquire(\&sh->data[lpn % 61 == 60 ? lpn - 1 : lpn]);/
