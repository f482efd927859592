# static wear leveling moves the most worn closed block instead of the least worn => core; ftlsim
# file: ftl/ftl.c
# changes: 2
s/^\t\t    ftl->blocks\[b\].erase_count < ftl->blocks\[coldest\].erase_count)$/\t\t    ftl->blocks[b].erase_count > ftl->blocks[coldest].erase_count)/
