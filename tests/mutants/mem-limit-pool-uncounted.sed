# pages that come out of limbo into the pool are uncharged as if freed: reusing them lets the device pass mem_limit_mib => vm 38-mem-limit
# file: module/pages.c
# changes: 1
/^static unsigned int limbo_reclaim(/,/^}/{/^\t\t\tdev->pool\[dev->pool_pages++\] = page;$/a\
\t\t\tmem_uncharge(dev, 1);
}
