#!/bin/sh
# FLUSH reaches the device only when it advertises a volatile write cache
# (write_cache=1), and is then completed and counted; without one the block
# layer completes flushes itself and the device sees none.
. /tests/lib.sh
plan 8

ok "modprobe ftlblk size=64 write_cache=1" modprobe ftlblk size=64 write_cache=1
is "$(cat /sys/block/ftlblk0/queue/write_cache)" "write back" "queue/write_cache is write back"
is "$(cat /sys/block/ftlblk0/queue/fua)" "1" "queue/fua is 1"
before=$(sysfs_read /sys/block/ftlblk0/ftl/flush_requests)
ok "write with fsync" dd if=/dev/zero of=/dev/ftlblk0 bs=64k count=16 conv=fsync
after=$(sysfs_read /sys/block/ftlblk0/ftl/flush_requests)
ok "the device received flush requests ($before -> $after)" test "$after" -gt "$before"
ok "modprobe -r ftlblk" modprobe -r ftlblk

modprobe ftlblk size=64
dd if=/dev/zero of=/dev/ftlblk0 bs=64k count=16 conv=fsync 2>/dev/null
is "$(sysfs_read /sys/block/ftlblk0/ftl/flush_requests)" 0 "without write_cache no flush reaches the device"
modprobe -r ftlblk
check_dmesg
