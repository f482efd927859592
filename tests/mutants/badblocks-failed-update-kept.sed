# a badblocks write that fails with ENOSPC leaves the sectors it managed to add bad => vm 37-badblocks
# file: module/badblocks.c
# changes: 2
s/^\tif (\*done) {$/\tif (true) {/
