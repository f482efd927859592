# writes refused at mem_limit_mib are not counted in mem_limit_rejections => vm 38-mem-limit
# file: module/pages.c
# changes: 1
/^\tftlblk_count(dev, FTLBLK_PC_MEM_LIMIT_REJECTIONS, 1);$/d
