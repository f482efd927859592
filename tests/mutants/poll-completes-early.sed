# a request on a poll queue ends at the first poll instead of at its modeled completion => vm 41-timing
# file: module/complete.c
# changes: 2
s/^\t\tif (cmd->treq.done > now)$/\t\tif (cmd->treq.done > now \&\& 0)/
