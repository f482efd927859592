# reset_stats resets the FTL counters but not the per-CPU ones (discard_*, flush, write-zeroes, reads) => vm 12-reset-stats 50-full-discard
# file: module/sysfs.c
# changes: 2
s/^\t\t       sizeof(struct ftlblk_pcpu_stats));$/\t\t       0 * sizeof(struct ftlblk_pcpu_stats));/
