# every placement class writes into class 0's open block => core
# file: ftl/ftl.c
# changes: 2
s/	u32 f = FTL_FRONTIER_HOST(cls), old;/	u32 f = FTL_FRONTIER_HOST(0), old;/
