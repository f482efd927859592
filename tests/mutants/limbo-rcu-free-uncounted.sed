# released pages that found no carrier (memory pressure, mem_limit_mib) are freed by call_rcu() without being uncharged: the limit shrinks with every one => vm 38-mem-limit
# file: module/pages.c
# changes: 1
/^static void free_after_grace_period(/,/^}/{/^\tmem_uncharge(dev, 1);$/d}
