# discard zeroes whole pages but keeps them mapped (programs zero pages instead of unmapping) => vm 40-blkdiscard 50-full-discard
# file: module/discard.c
# changes: 2
s/^\t\tsts = nounmap ? write_zero_pages(dev, &cmd->treq, first_whole,$/\t\tsts = nounmap || discard ? write_zero_pages(dev, \&cmd->treq, first_whole,/
