#!/bin/sh
# Discard through loop and ext4 (issue 12): a loop device over a 4 MiB
# file on ext4 on ftlblk. loop serves a discard as fallocate(PUNCH_HOLE)
# on its file; ext4 frees the file blocks wholly inside the range (and
# zeroes the partial ones at its ends), and with -o discard sends exactly
# the freed blocks to ftlblk after the journal commit. The expected ftlblk
# sectors come from the file's block map (filefrag -v) before the punch
# alone: loop sector s is byte 512 s of the file, file block b lives at
# physical block phys(b), ftlblk sector 8 phys(b). Each punched range sits
# between blocks the file keeps, so ext4's forward extension over free
# blocks (see 74-conform-ext4.sh) adds nothing: the trace must be exactly
# the punched blocks.
#
# Negative cases: a punch inside one block frees nothing and sends
# nothing; with -o nodiscard the holes are punched but nothing reaches
# ftlblk until fstrim, which then sends exactly the free blocks (dumpe2fs),
# the punched ones among them, and unmaps exactly those punched blocks
# (every other free block was trimmed at the start).
# shellcheck source=lib.sh
. /tests/lib.sh
# shellcheck source=conform-lib.sh
. /tests/conform-lib.sh
need_module ftlblk loop
need_cmd mkfs.ext4 filefrag dumpe2fs losetup blkdiscard fstrim e2fsck
plan 45

MNT=/mnt/s79
IMG=$MNT/img
BS=4096
L=

cleanup() {
	[ -n "$L" ] && losetup -d "$L" 2>/dev/null
	grep -q " $MNT " /proc/mounts && umount $MNT
	[ -e "$TRACE/events/ftlblk/ftlblk_discard/enable" ] && trace_stop
	cdev_remove c
	rm -f /tmp/lp.*
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

# extents: "logical physical length" (fs blocks) of $IMG, from filefrag -v.
extents() {
	filefrag -v "$IMG" | sed -n 's/^ *[0-9]*: *\([0-9]*\)\.\. *[0-9]*: *\([0-9]*\)\.\. *[0-9]*: *\([0-9]*\).*/\1 \2 \3/p'
}
# punched OFF LEN: file blocks wholly inside bytes [OFF, OFF+LEN), mapped
# through /tmp/lp.ext (extents before the punch) to merged ftlblk
# "start end" sector ranges.
punched() {
	awk -v o="$1" -v l="$2" -v bs=$BS -v spb=$((BS / 512)) '
		BEGIN { f = int((o + bs - 1) / bs); e = int((o + l) / bs) }
		{ for (b = f; b < e; b++) if (b >= $1 && b < $1 + $3)
			print ($2 + b - $1) * spb, spb }' /tmp/lp.ext | ranges_merge
}
nblocks() { awk '{ n += $2 - $1 } END { print n / 8 }' "$1"; }
# allocated: the file's logical blocks in use, one per line.
allocated() { extents | awk '{ for (i = 0; i < $3; i++) print $1 + i }'; }
# holes OFF LEN: the logical blocks wholly inside the range.
holes() { awk -v o="$1" -v l="$2" -v bs=$BS 'BEGIN { for (b = int((o + bs - 1) / bs); b < int((o + l) / bs); b++) print b }'; }
got() { trace_ranges "$D" | ranges_merge; }
# wait_for FILE: wait (up to 10 s) until the trace covers FILE's ranges
# (ext4 discards from a workqueue after the commit), then 0.5 s more.
wait_for() {
	_i=0
	while [ -n "$(got >/tmp/lp.w; ranges_sub "$1" /tmp/lp.w)" ] && [ $_i -lt 50 ]; do
		sleep 0.2; _i=$((_i + 1))
	done
	sleep 0.5
}
zero_ref() { dd if=/dev/zero of=/tmp/lp.ref bs=1 seek="$1" count="$2" conv=notrunc 2>/dev/null; }
vpd() { cstat "$D" valid_pages_discarded; }

# punch DESC OFF LEN: blkdiscard on the loop device under -o discard.
punch() {
	extents >/tmp/lp.ext
	punched "$2" "$3" >/tmp/lp.want
	allocated >/tmp/lp.before
	_v=$(vpd) _p=$(cstat "$D" pages_discarded)
	trace_start
	ok "$1: blkdiscard -o $2 -l $3 $L" blkdiscard -f -o "$2" -l "$3" "$L"
	sync
	wait_for /tmp/lp.want
	_n=$(nblocks /tmp/lp.want)
	diag "$1: traced (sector nr_sectors) $(trace_ranges "$D" | tr '\n' ' ')"
	is "$(got)" "$(cat /tmp/lp.want)" "$1: ftlblk got exactly the $_n file blocks wholly inside the range, at their physical sectors"
	is "$(($(cstat "$D" pages_discarded) - _p)) $(($(vpd) - _v))" "$_n $_n" \
		"$1: pages_discarded and valid_pages_discarded +$_n"
	holes "$2" "$3" >/tmp/lp.holes
	allocated >/tmp/lp.after
	is "$(grep -vxFf /tmp/lp.after /tmp/lp.before | tr '\n' ' ')" "$(tr '\n' ' ' </tmp/lp.holes)" \
		"$1: the file lost exactly those blocks (filefrag)"
	zero_ref "$2" "$3"
	ok "$1: the loop device reads as the file with the range zeroed" cmp "$L" /tmp/lp.ref
}

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
ok "modprobe loop" modprobe loop
cdev_ok "device c: 32 MiB" c size=32 pages_per_block=64
D=$CDEV
ok "mkfs.ext4 -b 4096 (no discard, no lazy init)" \
	mkfs.ext4 -q -F -b $BS -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 "/dev/$D"
mkdir -p $MNT
ok "mount -o discard" mount -t ext4 -o discard "/dev/$D" $MNT
# From here the device holds data only where ext4 has blocks in use.
ok "fstrim the fresh filesystem" fstrim $MNT
ok "4 MiB file of random data" sh -c \
	"dd if=/dev/urandom of=/tmp/lp.ref bs=1M count=4 2>/dev/null && cp /tmp/lp.ref $IMG && sync"
diag "file map: $(extents | tr '\n' ' ')"
trace_start
L=$(losetup -f --show "$IMG")
ok "losetup: $L over $IMG" test -b "$L"
is "$(sysfs_read "/sys/block/${L#/dev/}/queue/discard_granularity")" $BS \
	"loop advertises discard granularity = the filesystem block size (statfs f_bsize)"
dmb=$(sysfs_read "/sys/block/${L#/dev/}/queue/discard_max_bytes")
ok "loop advertises discard (discard_max_bytes $dmb)" test "$dmb" -gt 0
is "$(trace_ranges "$D" | wc -l)" 0 "setting up the loop device sent no discard"

punch "aligned 256 KiB at 1 MiB" $((1 << 20)) $((256 << 10))
# Unaligned: the blocks at both ends are partly in the range; ext4 zeroes
# their part and keeps them.
punch "unaligned 64 KiB at 2 MiB + 1536" $(((2 << 20) + 1536)) $((64 << 10))

# Inside one block: zeroed in place, nothing freed, nothing discarded.
extents >/tmp/lp.before
_v=$(vpd)
trace_start
ok "sub-block: blkdiscard -o 3 MiB + 512 -l 2048" blkdiscard -f -o $(((3 << 20) + 512)) -l 2048 "$L"
sync
sleep 2
is "$(trace_ranges "$D" | wc -l) $(($(vpd) - _v))" "0 0" "sub-block: nothing reached ftlblk"
is "$(extents)" "$(cat /tmp/lp.before)" "sub-block: the file keeps all its blocks"
zero_ref $(((3 << 20) + 512)) 2048
ok "sub-block: the loop device reads as the file with those 2048 bytes zeroed" cmp "$L" /tmp/lp.ref

# ---- -o nodiscard: holes now, discards only at fstrim -------------------------
ok "losetup -d" losetup -d "$L"
L=
ok "remount -o nodiscard" sh -c "umount $MNT && mount -t ext4 -o nodiscard /dev/$D $MNT"
L=$(losetup -f --show "$IMG")
ok "losetup again: $L" test -b "$L"
extents >/tmp/lp.ext
OFF=$(((3 << 20) + (512 << 10))) LEN=$((128 << 10))
punched $OFF $LEN >/tmp/lp.want
n=$(nblocks /tmp/lp.want)
allocated >/tmp/lp.before
_v=$(vpd)
trace_start
ok "nodiscard: blkdiscard -o $OFF -l $LEN $L" blkdiscard -f -o $OFF -l $LEN "$L"
sync
sleep 2
is "$(trace_ranges "$D" | wc -l) $(($(vpd) - _v))" "0 0" "nodiscard: nothing reached ftlblk"
holes $OFF $LEN >/tmp/lp.holes
allocated >/tmp/lp.after
is "$(grep -vxFf /tmp/lp.after /tmp/lp.before | tr '\n' ' ')" "$(tr '\n' ' ' </tmp/lp.holes)" \
	"nodiscard: the hole is punched all the same ($n blocks)"
zero_ref $OFF $LEN
ok "nodiscard: the loop device reads as the file with the range zeroed" cmp "$L" /tmp/lp.ref
ok "losetup -d" losetup -d "$L"
L=
# The free blocks from the unmounted filesystem; a remount forgets which
# groups were trimmed, so fstrim sends all of them.
ok "umount" umount $MNT
dumpe2fs "/dev/$D" 2>/dev/null | sed -n 's/^ \{1,\}Free blocks: //p' | tr ',' '\n' |
	awk 'NF { n = split($1, a, "-"); e = n > 1 ? a[2] : a[1]; print a[1] * 8, (e - a[1] + 1) * 8 }' |
	ranges_merge >/tmp/lp.free
ok "mount -o nodiscard" mount -t ext4 -o nodiscard "/dev/$D" $MNT
_v=$(vpd)
trace_start
ok "fstrim" fstrim $MNT
diag "fstrim: traced $(trace_ranges "$D" | tr '\n' ' ')"
is "$(got)" "$(cat /tmp/lp.free)" "fstrim: ftlblk got exactly the free blocks ($(wc -l </tmp/lp.free) runs, dumpe2fs)"
is "$(ranges_sub /tmp/lp.want /tmp/lp.free)" "" "fstrim: the punched blocks are among them"
is "$(($(vpd) - _v))" "$n" "fstrim: valid_pages_discarded +$n: only the punched blocks still held data"
ok "the file reads back as the reference with the three ranges zeroed" cmp $IMG /tmp/lp.ref
ok "umount" umount $MNT
ok "e2fsck -fn: the filesystem is consistent" e2fsck -fn "/dev/$D"

trace_stop
ok "remove device c" cdev_remove c
ok "modprobe -r ftlblk" modprobe -r ftlblk
check_dmesg
done_testing
