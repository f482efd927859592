# timed requests end at once instead of at their modeled completion => vm 41-timing
# file: module/complete.c
# changes: 2
s/wait = cmd->treq.done > ktime_get_ns() \&\&/wait = false \&\&/
