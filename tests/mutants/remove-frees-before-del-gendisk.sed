# device removal frees the FTL and data before del_gendisk(): requests in flight use freed memory => vm 55-configfs-races 56-unload-race
# file: module/device.c
# changes: 2
/^int ftlblk_remove/,/^}/{
/^\tftlblk_free_ftl(dev);$/d
s/^\tdel_gendisk(disk);$/\tftlblk_free_ftl(dev);\n&/
}
