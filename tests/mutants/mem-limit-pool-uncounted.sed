# pages kept in the pool are uncharged as if freed: the pool lets the device pass mem_limit_mib => vm 38-mem-limit
# file: module/pages.c
# changes: 2
s/^\tfree_data_pages(dev, pages, spill);$/\tfree_data_pages(dev, pages, spill); mem_uncharge(dev, n - spill);/
