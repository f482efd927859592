#!/bin/bash
# The Debian root filesystem (tests/vm/run --rootfs debian, the userland
# `make blktests` and `make xfstests` run in): builds the image if the cache
# has none for the current package list, boots it, and runs a short subset
# of the guest suite there (00-boot, 10-load, 40-blkdiscard,
# 62-debian-mount) plus one test that needs the real Debian userland (udev,
# lsblk, xfsprogs, LVM), written below. One boot; prints the suite's TAP
# and its "N passed, N failed, N skipped" line; exits non-zero on a failure.
set -euo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/debian-rootfs.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The suite's own files (lib.sh and the tests) plus the Debian-only test.
cp -a "${VM_GUEST_DIR:-$top/tests/vm/guest}/." "$work/guest/"
cat >"$work/guest/64-debian-userland.sh" <<'GUEST'
#!/bin/sh
# ftlblk under a real Debian userland: udev sees the device, lsblk reports
# its discard limits, XFS's fstrim and a discard through an LVM volume
# reach the FTL (valid pages drop), and the module unloads once udev is idle.
. /tests/lib.sh
need_module ftlblk
need_cmd udevadm lsblk mkfs.xfs pvcreate
plan 17

cleanup() {
	umount /mnt 2>/dev/null
	vgremove --config "$lvm" -y -f vgftl >/dev/null 2>&1
	pvremove --config "$lvm" -y -ff /dev/ftlblk0 >/dev/null 2>&1
	udevadm settle
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT
# LVM accepts only block device types it knows (by /proc/devices name).
lvm='devices { types = [ "ftlblk", 16 ] }'

ok "systemd-udevd is running" pgrep -x systemd-udevd
# 512 MiB: mkfs.xfs wants more than 300 MB.
ok "modprobe ftlblk size=512" modprobe ftlblk size=512
ok "udevadm settle" udevadm settle --timeout=60
ok "udev has a database entry for /dev/ftlblk0" sh -c \
	'udevadm info --query=property --name=/dev/ftlblk0 | grep -qx "DEVNAME=/dev/ftlblk0"'
is "$(lsblk -dnbo DISC-GRAN,DISC-ZERO /dev/ftlblk0 | tr -s ' ' | sed 's/^ //')" \
	"4096 0" "lsblk: discard granularity 4096 bytes, no zeroing promise"

# XFS (mkfs.xfs discards the whole device first), a 32 MiB file, fstrim.
ok "mkfs.xfs" mkfs.xfs -q -f /dev/ftlblk0
ok "mount (xfs, without -o discard)" mount /dev/ftlblk0 /mnt
ok "write a 32 MiB file" dd if=/dev/urandom of=/mnt/f bs=1M count=32 conv=fsync status=none
v0=$(st ftlblk0 valid_pages)
rm /mnt/f
sync
ok "fstrim /mnt" fstrim /mnt
v1=$(st ftlblk0 valid_pages)
ok "fstrim freed the file's 8192 pages (valid $v0 -> $v1)" test $((v0 - v1)) -ge 8192
ok "umount" umount /mnt

# LVM on ftlblk: lvcreate waits for udev (dm udev sync); a discard of the
# logical volume goes through dm-linear to the FTL.
ok "pvcreate + vgcreate + lvcreate -L 64M" sh -c 'pvcreate --config "$1" -q -ff -y /dev/ftlblk0 &&
	vgcreate --config "$1" -q vgftl /dev/ftlblk0 &&
	lvcreate --config "$1" -q -y -L 64M -n lv vgftl' sh "$lvm"
ok "/dev/vgftl/lv made by udev" test -b /dev/vgftl/lv
dd if=/dev/urandom of=/dev/vgftl/lv bs=1M count=16 oflag=direct status=none
v0=$(st ftlblk0 valid_pages)
ok "blkdiscard /dev/vgftl/lv" blkdiscard /dev/vgftl/lv
v1=$(st ftlblk0 valid_pages)
ok "the LV's 4096 written pages are discarded (valid $v0 -> $v1)" test $((v0 - v1)) -ge 4096
ok "lvremove, vgremove, pvremove" sh -c 'lvremove --config "$1" -q -y vgftl/lv &&
	vgremove --config "$1" -q -y vgftl && pvremove --config "$1" -q -y /dev/ftlblk0 &&
	udevadm settle' sh "$lvm"
check_dmesg
GUEST
chmod 755 "$work/guest/64-debian-userland.sh"

rc=0
VM_GUEST_DIR=$work/guest "$top/tests/vm/run" --rootfs debian --timeout 600 \
	00-boot 10-load 40-blkdiscard 62-debian-mount 64-debian-userland ||
	rc=$?
exit $rc
