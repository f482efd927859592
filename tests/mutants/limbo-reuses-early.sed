# released pages leave limbo before their RCU grace period: a lock-free reader copies a page that a write is already refilling (torn read) => vm 72-conform-race
# file: module/pages.c
# changes: 2
s/^\t\t\tif (!poll_state_synchronize_rcu(c->cookie))$/\t\t\tif (0 \&\& !poll_state_synchronize_rcu(c->cookie))/
