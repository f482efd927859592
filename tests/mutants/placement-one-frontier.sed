# every placement class writes into class 0's open block => core
# file: ftl/ftl.c
# changes: 2
/^int ftl_write_class(/,/^}/s/	u32 f = FTL_FRONTIER_HOST(cls);/	u32 f = FTL_FRONTIER_HOST(0);/
