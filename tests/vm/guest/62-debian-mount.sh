#!/bin/sh
# The guest behaves like a Debian machine for the commands a user types:
# mount without -t (and with -o discard) on vfat and ext4, vfat without
# iocharset=, mkfs.vfat without iconv complaints, a non-ASCII file name
# survives a remount.
. /tests/lib.sh
need_module ftlblk
plan 10

cleanup() {
	umount /mnt 2>/dev/null
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

ok "modprobe ftlblk size=64" modprobe ftlblk size=64
out=$(mkfs.vfat /dev/ftlblk0 2>&1)
is "$(printf '%s\n' "$out" | grep -ciE 'cannot|conversion|error')" 0 \
	"mkfs.vfat prints no conversion error"
ok "mount -o discard /dev/ftlblk0 /mnt (vfat, no -t, no iocharset=)" \
	mount -o discard /dev/ftlblk0 /mnt
is "$(awk '$1 == "/dev/ftlblk0" { print $3 }' /proc/mounts)" vfat "mounted as vfat"
ok "an ASCII and a non-ASCII file name are created" sh -c \
	'echo a >/mnt/plain.txt && echo b >/mnt/caf$(printf "\303\251").txt'
ok "umount" umount /mnt
ok "mount /dev/ftlblk0 /mnt again" mount /dev/ftlblk0 /mnt
is "$(cat /mnt/plain.txt 2>&1)|$(cat "/mnt/caf$(printf '\303\251').txt" 2>&1)" "a|b" \
	"both files read back by name after the remount"
umount /mnt
ok "mkfs.ext4, then mount -o discard without -t" sh -c \
	'mkfs.ext4 -q -F /dev/ftlblk0 && mount -o discard /dev/ftlblk0 /mnt &&
	 grep -q "^/dev/ftlblk0 /mnt ext4 .*discard" /proc/mounts && umount /mnt'
check_dmesg
