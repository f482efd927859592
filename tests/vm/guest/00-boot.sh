#!/bin/sh
# Smoke test: the VM booted the expected kernel with the harness' mounts, and
# in-tree modules and tools the other tests rely on are usable.
. /tests/lib.sh

plan 9

is "$(uname -r)" "$KVER" "kernel is $KVER"
ok "configfs mounted at /sys/kernel/config" grep -q ' /sys/kernel/config configfs ' /proc/mounts
ok "tracefs mounted at /sys/kernel/tracing" grep -q ' /sys/kernel/tracing tracefs ' /proc/mounts
ok "modprobe brd rd_nr=1 rd_size=65536" modprobe brd rd_nr=1 rd_size=65536
ok "/dev/ram0 is a block device" test -b /dev/ram0
is "$(blockdev --getsize64 /dev/ram0 2>&1)" $((65536 * 1024)) "/dev/ram0 is 64 MiB"
ok "blkdiscard exists" command -v blkdiscard
ok "modprobe -r brd" modprobe -r brd
check_dmesg
