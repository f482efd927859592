# configfs shows its own power_cut_mode, not the one written through sysfs, and restores it at power on => vm 43-write-cache
# file: module/configfs.c
# changes: 2
s/mode = fi->dev ? READ_ONCE(fi->dev->cut_mode) : fi->cut_mode;/mode = fi->cut_mode;/
