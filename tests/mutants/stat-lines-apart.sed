# ftl/stat takes a new snapshot for every line: counters that belong together (host and NAND writes, waf) come from different moments => vm 13-stat
# file: module/sysfs.c
# changes: 2
s/^\t\tlen += sysfs_emit_at(buf, len, "%s ",$/\t\tftlblk_snapshot(to_ftlblk(d), \&s); len += sysfs_emit_at(buf, len, "%s ",/
