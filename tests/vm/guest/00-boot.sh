#!/bin/sh
# Smoke test: the VM booted the expected kernel with the harness' mounts, and
# in-tree modules and tools the other tests rely on are usable.
# shellcheck source=lib.sh
. /tests/lib.sh

plan 15

is "$(uname -r)" "$KVER" "kernel is $KVER"
ok "configfs mounted at /sys/kernel/config" grep -q ' /sys/kernel/config configfs ' /proc/mounts
ok "tracefs mounted at /sys/kernel/tracing" grep -q ' /sys/kernel/tracing tracefs ' /proc/mounts
ok "debugfs mounted at /sys/kernel/debug" grep -q ' /sys/kernel/debug debugfs ' /proc/mounts
ok "modprobe brd rd_nr=1 rd_size=65536" modprobe brd rd_nr=1 rd_size=65536
ok "/dev/ram0 is a block device" test -b /dev/ram0
is "$(blockdev --getsize64 /dev/ram0 2>&1)" $((65536 * 1024)) "/dev/ram0 is 64 MiB"
ok "blkdiscard exists" command -v blkdiscard
ok "modprobe zram" modprobe zram num_devices=1
ok "zram0 sized 64 MiB" sh -c 'echo 64M > /sys/block/zram0/disksize'
ok "blkdiscard /dev/zram0" blkdiscard /dev/zram0
# The Debian tools, not busybox applets of the same name, must be found.
bb=
for t in blkdiscard fstrim blockdev losetup mkfs.vfat mkfs.ext4 modprobe fio; do
	p=$(command -v $t) || { bb="$bb $t(missing)"; continue; }
	case $(readlink -f "$p") in */busybox) bb="$bb $t" ;; esac
done
is "$bb" "" "util-linux/dosfstools/e2fsprogs/kmod tools are Debian's"
ok "modprobe -r brd zram" modprobe -r brd zram
if [ -f "/lib/modules/$KVER/extra/ftlblk.ko" ]; then
	ok "modinfo finds the staged ftlblk" modinfo ftlblk
else
	skip "modinfo finds the staged ftlblk" "module/ftlblk.ko not built"
fi
check_dmesg
