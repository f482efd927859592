# discard zeroes whole pages but keeps them mapped (programs zero pages instead of unmapping) => vm 40-blkdiscard 50-full-discard
# file: module/discard.c
# changes: 3
s/^\treturn unmap_pages(dev, cmd->pages, lpn, last - lpn + 1, discard);$/\treturn discard ? write_zero_pages(dev, lpn, last - lpn + 1) :\n\t       unmap_pages(dev, cmd->pages, lpn, last - lpn + 1, discard);/
