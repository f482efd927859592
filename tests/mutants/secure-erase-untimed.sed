# with timing=1 a secure erase's relocations and erases are charged to no request => vm 51-remanence
# file: module/secure_erase.c
# changes: 2
s/			sh->treq = &cmd->treq;/			sh->treq = NULL;/
