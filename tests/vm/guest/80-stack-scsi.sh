#!/bin/sh
# Discard through SCSI (issue 12): the kernel's own target (LIO), set up
# through configfs alone, exports ftlblk devices as iblock backstores over
# tcm_loop; sd attaches them as SCSI disks; a discard on the sd disk is an
# UNMAP command, which iblock turns back into a block discard on ftlblk.
# The expectations come from the layers' documented mapping, not from
# ftlblk: iblock presents the backing device's logical block size
# (block_size) and derives its UNMAP limits from its queue
# (max_unmap_lba_count = max_discard_sectors in blocks, unmap_granularity
# = discard_granularity / block_size, one descriptor per UNMAP); sd
# advertises discard_max_bytes = max_unmap_lba_count x block size and
# discard_granularity = unmap_granularity x block size; LBA n of a disk
# with B-byte blocks is ftlblk sector n x B / 512. So each discard must
# arrive as exactly the sector ranges of the bios the block layer makes
# (the first ends at a 4 KiB boundary when the start is not on one; then
# pieces of at most discard_max_bytes), one ftlblk range per UNMAP.
#
#   lun 0: 512-byte blocks, emulate_tpu=1: blkdiscard, partial pages
#   lun 1: 4096-byte blocks, emulate_tpu=1, max_unmap_lba_count=64: LBA
#          conversion and splitting; fstrim of ext4 = the free blocks
#   lun 2: emulate_tpu=0 (negative): provisioning_mode full, no discard
#   lun 3: emulate_tpu=1 but no unit serial (negative): LIO then lists no
#          VPD pages, so 6.1's sd never sees the Logical Block
#          Provisioning page and falls back to WRITE SAME(16) with UNMAP,
#          which LIO refuses without emulate_tpws: the discard fails
#          (EREMOTEIO), sd disables discard, nothing reaches ftlblk.
# shellcheck source=lib.sh
. /tests/lib.sh
# shellcheck source=conform-lib.sh
. /tests/conform-lib.sh
need_module ftlblk target_core_mod target_core_iblock tcm_loop sd_mod
need_cmd blkdiscard fstrim mkfs.ext4 dumpe2fs e2fsck
if kernel_at_least 6.19; then plan 45; else plan 72; fi

T=/sys/kernel/config/target
WWN=naa.5001405f7b800001
TPG=$T/loopback/$WWN/tpgt_1
MNT=/mnt/s80
KEYS="discard_ranges discard_sectors pages_discarded valid_pages_discarded"
had_sd=0
[ -d /sys/module/sd_mod ] && had_sd=1

cleanup() {
	grep -q " $MNT " /proc/mounts && umount $MNT
	for i in 3 2 1 0; do
		[ -L "$TPG/lun/lun_$i/s80$i" ] && rm "$TPG/lun/lun_$i/s80$i"
		[ -d "$TPG/lun/lun_$i" ] && rmdir "$TPG/lun/lun_$i"
	done
	[ -e "$TPG/nexus" ] && echo NULL >"$TPG/nexus" 2>/dev/null
	[ -d "$TPG" ] && rmdir "$TPG"
	[ -d "$T/loopback/$WWN" ] && rmdir "$T/loopback/$WWN"
	[ -d "$T/loopback" ] && rmdir "$T/loopback"
	for i in 3 2 1 0; do
		[ -d "$T/core/iblock_$i/s80$i" ] && rmdir "$T/core/iblock_$i/s80$i"
		[ -d "$T/core/iblock_$i" ] && rmdir "$T/core/iblock_$i"
	done
	modprobe -r tcm_loop target_core_iblock target_core_mod 2>/dev/null
	[ $had_sd = 1 ] || modprobe -r sd_mod 2>/dev/null
	[ -e "$TRACE/events/ftlblk/ftlblk_discard/enable" ] && trace_stop
	for n in a b c d; do cdev_remove $n; done
	rm -f /tmp/sc.*
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

# backstore I DEV [ATTR=VALUE...] [serial]: iblock_I/s80I over /dev/DEV,
# enabled, then the attributes; "serial" also sets wwn/vpd_unit_serial.
backstore() {
	_d=$T/core/iblock_$1/s80$1 _i=$1
	mkdir -p "$_d" && echo "udev_path=/dev/$2" >"$_d/control" &&
		echo "/dev/$2" >"$_d/udev_path" && echo 1 >"$_d/enable" || return 1
	shift 2
	for _a; do
		case $_a in
		serial) echo "ftlblk-s80-$_i" >"$_d/wwn/vpd_unit_serial" || return 1 ;;
		*) echo "${_a#*=}" >"$_d/attrib/${_a%%=*}" || return 1 ;;
		esac
	done
}
attr() { sysfs_read "$T/core/iblock_$1/s80$1/attrib/$2"; }
# sd_of LUN: the sd disk of LUN (waits up to 10 s for sd to attach it).
sd_of() {
	_i=0
	while [ $_i -lt 50 ]; do
		for _s in /sys/bus/scsi/devices/*:0:1:"$1"/block/sd*; do
			[ -d "$_s" ] && { echo "${_s##*/}"; return 0; }
		done
		sleep 0.2; _i=$((_i + 1))
	done
	echo none
	return 1
}
q() { sysfs_read "/sys/block/$1/queue/$2"; }
pmode() { sysfs_read "$(echo /sys/block/"$1"/device/scsi_disk/*/provisioning_mode)"; }

# expect START COUNT MAX: the ranges (512-byte sectors) the bios of a
# discard of [START, +COUNT) arrive as: a head up to the first 4 KiB
# boundary if START is not on one, then pieces of at most MAX sectors.
expect() {
	awk -v s="$1" -v n="$2" -v m="$3" -v g=8 'BEGIN {
		a = int((s + g - 1) / g) * g
		if (a > s && a < s + n) { print s, a - s; n -= a - s; s = a }
		while (n > 0) { c = n > m ? m : n; print s, c; s += c; n -= c } }'
}
# deltas_for DEV FILE: expected counter deltas of DEV for the "sector
# count" ranges in FILE; valid_pages_discarded: the pages covered whole
# that no earlier discard on DEV covered (remembered in /tmp/sc.done.DEV).
deltas_for() {
	awk '{ f = int(($1 + 7) / 8); l = int(($1 + $2) / 8); for (p = f; p < l; p++) print p }' \
		"$2" | sort -u >/tmp/sc.pages
	touch "/tmp/sc.done.$1"
	_v=$(awk -v done="/tmp/sc.done.$1" 'FILENAME == done { d[$1] = 1; next } !($1 in d)' \
		"/tmp/sc.done.$1" /tmp/sc.pages | wc -l)
	cat /tmp/sc.pages >>"/tmp/sc.done.$1"
	echo "discard_ranges=$(wc -l <"$2") discard_sectors=$(awk '{ n += $2 } END { print n + 0 }' "$2") pages_discarded=$(wc -l </tmp/sc.pages) valid_pages_discarded=$_v"
}
zero_ref() { dd if=/dev/zero of="$1" bs=512 seek="$2" count="$3" conv=notrunc 2>/dev/null; }

# unmap DESC SD DEV REF OFF LEN MAX: blkdiscard bytes [OFF, +LEN) on SD;
# DEV got exactly the expected ranges, counted them, SD reads as REF with
# the range zeroed.
unmap() {
	expect $(($5 / 512)) $(($6 / 512)) "$7" >/tmp/sc.want
	snap "$3"
	trace_start
	ok "$1: blkdiscard -o $5 -l $6 /dev/$2" blkdiscard -f -o "$5" -l "$6" "/dev/$2"
	is "$(trace_ranges "$3" | sort -n | tr '\n' ' ')" "$(tr '\n' ' ' </tmp/sc.want)" \
		"$1: $3 got exactly sectors $(($5 / 512)) +$(($6 / 512)) as $(wc -l </tmp/sc.want) range(s)"
	diag "$1: traced $(trace_ranges "$3" | tr '\n' ' ')"
	is "$(deltas "$3")" "$(deltas_for "$3" /tmp/sc.want)" "$1: $3's counters"
	zero_ref "$4" $(($5 / 512)) $(($6 / 512))
	ok "$1: /dev/$2 reads as the reference with the range zeroed" cmp "/dev/$2" "$4"
}

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
cdev_ok "device a: 16 MiB, 512-byte blocks" a size=16 pages_per_block=64
A=$CDEV
# b without atomic writes: from 6.19 LIO's page then lacks the UNMAP limits
cdev_ok "device b: 16 MiB, 4096-byte blocks, no atomic writes" b size=16 blocksize=4096 \
	pages_per_block=64 atomic_write_max_kib=0
B=$CDEV
cdev_ok "device c: 16 MiB" c size=16 pages_per_block=64
C=$CDEV
cdev_ok "device d: 16 MiB" d size=16 pages_per_block=64
Dd=$CDEV
ok "modprobe sd_mod target_core_iblock tcm_loop" sh -c "modprobe sd_mod && modprobe target_core_iblock && modprobe tcm_loop"

# ---- target configuration --------------------------------------------------------
ok "backstore 0: iblock on $A, emulate_tpu=1" backstore 0 "$A" emulate_tpu=1 serial
ok "backstore 1: iblock on $B, emulate_tpu=1, max_unmap_lba_count=64" \
	backstore 1 "$B" emulate_tpu=1 max_unmap_lba_count=64 serial
ok "backstore 2: iblock on $C, emulate_tpu=0" backstore 2 "$C" serial
ok "backstore 3: iblock on $Dd, emulate_tpu=1, no unit serial" backstore 3 "$Dd" emulate_tpu=1
gran=$(q "$A" discard_granularity)
is "$(attr 0 block_size) $(attr 0 max_unmap_lba_count) $(attr 0 unmap_granularity) $(attr 0 max_unmap_block_desc_count)" \
	"512 $(($(q "$A" discard_max_bytes) / 512)) $((gran / 512)) 1" \
	"backstore 0: block_size 512, UNMAP limits from $A's queue"
is "$(attr 1 block_size) $(attr 1 max_unmap_lba_count) $(attr 1 unmap_granularity)" \
	"4096 64 $((gran / 4096))" "backstore 1: block_size 4096, 64 blocks per UNMAP, granularity 1 block"
ok "tcm_loop target $WWN with a nexus" sh -c "mkdir -p $TPG && echo naa.5001405f7b800002 >$TPG/nexus"
trace_start
for i in 0 1 2 3; do
	mkdir "$TPG/lun/lun_$i" && ln -s "$T/core/iblock_$i/s80$i" "$TPG/lun/lun_$i/s80$i"
done
S0=$(sd_of 0) S1=$(sd_of 1) S2=$(sd_of 2) S3=$(sd_of 3)
ok "four LUNs attached as $S0 $S1 $S2 $S3" test "$S0" != none -a "$S1" != none -a "$S2" != none -a "$S3" != none
is "$(cat /sys/block/"$S0"/device/vendor /sys/block/"$S0"/device/model | tr -s ' \n' ' ')" "LIO-ORG IBLOCK " \
	"$S0 is LIO-ORG IBLOCK"
is "$(trace_ranges "$A"; trace_ranges "$B"; trace_ranges "$C"; trace_ranges "$Dd")" "" \
	"exporting and attaching the LUNs discarded nothing"

# ---- luns 0 and 1: UNMAP -----------------------------------------------------------------
is "$(cat "/sys/block/$S0/size")" "$(cat "/sys/block/$A/size")" "$S0: the size of $A"
# Since 6.19 LIO reports a 44-byte Block Limits VPD page for a backstore
# without atomic writes ("scsi: target: Report atomic values in INQUIRY":
# page length 40 unless the atomic fields follow), and sd takes the UNMAP
# limits only from a page of 64 bytes or more: it sees LBPU but no maximum
# UNMAP count, disables discard, and no discard reaches ftlblk through the
# LUN (lun 1: device b has no atomic writes). A backstore with atomic
# writes (lun 0: device a, 64 KiB by default) gets the whole page, and
# every UNMAP arrives exactly, as before 6.19 for every backstore.
if kernel_at_least 6.19; then
	is "$(od -An -tu1 -j3 -N1 "/sys/block/$S0/device/vpd_pgb0" | tr -d ' ') $(pmode "$S0")" "60 unmap" \
		"$S0: LIO's Block Limits VPD page length 60 (with $A's atomic write fields), provisioning_mode unmap"
	ok "fill $S0 with random data" sh -c \
		"dd if=/dev/urandom of=/tmp/sc.ref0 bs=1M count=16 2>/dev/null && dd if=/tmp/sc.ref0 of=/dev/$S0 bs=1M oflag=direct 2>/dev/null"
	unmap "lun 0 300 KiB" "$S0" "$A" /tmp/sc.ref0 $((100 << 10)) $((300 << 10)) "$(attr 0 max_unmap_lba_count)"
	for l in 1; do
		S=$S1 F=$B
		is "$(od -An -tu1 -j3 -N1 "/sys/block/$S/device/vpd_pgb0" | tr -d ' ')" 40 \
			"$S: LIO's Block Limits VPD page length 40 (44 bytes, no atomic fields)"
		is "$(pmode "$S")" disabled "$S: sd sets provisioning_mode disabled (no UNMAP limits read)"
		is "$(q "$S" discard_max_bytes)" 0 "$S: discard_max_bytes 0"
		ok "fill $S with random data" sh -c \
			"dd if=/dev/urandom of=/tmp/sc.ref$l bs=1M count=16 2>/dev/null && dd if=/tmp/sc.ref$l of=/dev/$S bs=1M oflag=direct 2>/dev/null"
		snap "$F"
		trace_start
		out=$(blkdiscard -f -o 1048576 -l 1048576 "/dev/$S" 2>&1)
		st=$?
		ok "$S: blkdiscard fails ($st: $(echo "$out" | tail -n 1))" test $st != 0 -a -z "${out##*not supported*}"
		is "$(trace_ranges "$F" | wc -l) $(deltas "$F")" \
			"0 discard_ranges=0 discard_sectors=0 pages_discarded=0 valid_pages_discarded=0" "$S: nothing reached $F"
		ok "$S and $F keep every byte" sh -c "cmp /dev/$S /tmp/sc.ref$l && blockdev --flushbufs /dev/$F && cmp /dev/$F /tmp/sc.ref$l"
	done
else
	# ---- lun 0: 512-byte blocks ----------------------------------------------------------
	is "$(pmode "$S0")" unmap "$S0: provisioning_mode unmap"
	is "$(q "$S0" logical_block_size) $(q "$S0" discard_granularity) $(q "$S0" discard_max_bytes)" \
		"512 $(($(attr 0 unmap_granularity) * 512)) $(($(attr 0 max_unmap_lba_count) * 512))" \
		"$S0: 512-byte blocks, discard_granularity and discard_max_bytes from the UNMAP limits"
	ok "fill $S0 with random data" sh -c \
		"dd if=/dev/urandom of=/tmp/sc.ref0 bs=1M count=16 2>/dev/null && dd if=/tmp/sc.ref0 of=/dev/$S0 bs=1M oflag=direct 2>/dev/null"
	M0=$(attr 0 max_unmap_lba_count)
	unmap "lun 0 300 KiB" "$S0" "$A" /tmp/sc.ref0 $((100 << 10)) $((300 << 10)) "$M0"
	unmap "lun 0 3 sectors into a page" "$S0" "$A" /tmp/sc.ref0 512 3072 "$M0"
	unmap "lun 0 odd head and tail" "$S0" "$A" /tmp/sc.ref0 $(((1 << 20) + 1536)) $((21 << 10)) "$M0"
	ok "$A itself reads as the reference too" sh -c "blockdev --flushbufs /dev/$A && cmp /dev/$A /tmp/sc.ref0"
	unmap "lun 0 whole disk" "$S0" "$A" /tmp/sc.ref0 0 $((16 << 20)) "$M0"

	# ---- lun 1: 4096-byte blocks, 64 blocks per UNMAP -----------------------------------------
	is "$(pmode "$S1")" unmap "$S1: provisioning_mode unmap"
	is "$(q "$S1" logical_block_size) $(q "$S1" discard_granularity) $(q "$S1" discard_max_bytes)" \
		"4096 4096 $((64 * 4096))" "$S1: 4096-byte blocks, discard_granularity 4096, discard_max_bytes 64 blocks"
	ok "fill $S1 with random data" sh -c \
		"dd if=/dev/urandom of=/tmp/sc.ref1 bs=1M count=16 2>/dev/null && dd if=/tmp/sc.ref1 of=/dev/$S1 bs=1M oflag=direct 2>/dev/null"
	unmap "lun 1 300 KiB" "$S1" "$B" /tmp/sc.ref1 $((100 << 10)) $((300 << 10)) 512
	unmap "lun 1 1 MiB" "$S1" "$B" /tmp/sc.ref1 $((1 << 20)) $((1 << 20)) 512
	ok "$B itself reads as the reference too" sh -c "blockdev --flushbufs /dev/$B && cmp /dev/$B /tmp/sc.ref1"
	is "$(blkdiscard -f -o 512 -l 4096 "/dev/$S1" 2>&1 >/dev/null | grep -c 'not aligned')" 1 \
		"$S1: a discard at byte 512 is refused (not a 4096-byte block)"

	# fstrim: ext4's free runs (dumpe2fs, the per-group lines), each split
	# into 64-block UNMAPs.
	ok "mkfs.ext4 -b 4096 -E nodiscard on $S1" mkfs.ext4 -q -F -b 4096 -E nodiscard "/dev/$S1"
	dumpe2fs "/dev/$S1" 2>/dev/null | sed -n 's/^ \{1,\}Free blocks: //p' | tr ',' '\n' |
		awk 'NF { n = split($1, a, "-"); e = n > 1 ? a[2] : a[1]; print a[1] * 8, (e - a[1] + 1) * 8 }' >/tmp/sc.runs
	while read -r s n; do expect "$s" "$n" 512; done </tmp/sc.runs | sort -n >/tmp/sc.want
	mkdir -p $MNT
	ok "mount -o nodiscard" mount -t ext4 -o nodiscard "/dev/$S1" $MNT
	snap "$B"
	trace_start
	ok "fstrim" fstrim $MNT
	is "$(trace_ranges "$B" | sort -n | tr '\n' ' ')" "$(tr '\n' ' ' </tmp/sc.want)" \
		"fstrim: $B got exactly the free blocks ($(wc -l </tmp/sc.runs) runs) as $(wc -l </tmp/sc.want) UNMAPs of <= 64 blocks"
	is "$(deltas "$B")" "$(deltas_for "$B" /tmp/sc.want)" "fstrim: $B's counters"
	ok "umount" umount $MNT
	ok "e2fsck -fn" e2fsck -fn "/dev/$S1"

fi

# ---- lun 2: no thin provisioning ------------------------------------------------------------
is "$(pmode "$S2") $(q "$S2" discard_max_bytes)" "full 0" "$S2 (emulate_tpu=0): provisioning_mode full, discard_max_bytes 0"
trace_start
out=$(blkdiscard -f "/dev/$S2" 2>&1)
s=$?
out=$(echo "$out" | tail -n 1)
ok "$S2: blkdiscard fails ($s: $out)" test $s != 0 -a -z "${out##*not supported*}"
is "$(trace_ranges "$C" | wc -l) $(cstat "$C" discard_requests)" "0 0" "$S2: nothing reached $C"

# ---- lun 3: emulate_tpu=1 without a unit serial ----------------------------------------------
is "$(pmode "$S3")" writesame_16 "$S3 (no VPD pages): sd guesses provisioning_mode writesame_16"
out=$(blkdiscard -f -o 0 -l 65536 "/dev/$S3" 2>&1)
s=$?
out=$(echo "$out" | tail -n 1)
ok "$S3: blkdiscard fails: LIO refuses WRITE SAME with UNMAP ($s: $out)" test $s != 0 -a -z "${out##*Remote I/O*}"
is "$(pmode "$S3") $(q "$S3" discard_max_bytes)" "disabled 0" "$S3: sd then disables discard"
is "$(trace_ranges "$Dd" | wc -l) $(cstat "$Dd" discard_requests)" "0 0" "$S3: nothing reached $Dd"

# ---- teardown, in reverse --------------------------------------------------------------
trace_stop
ok "unexport the LUNs" sh -c "for i in 3 2 1 0; do rm $TPG/lun/lun_\$i/s80\$i && rmdir $TPG/lun/lun_\$i || exit 1; done"
ok "the sd disks are gone" sh -c "! ls -d /sys/bus/scsi/devices/*:0:1:*/block 2>/dev/null | grep -q ."
ok "remove the target" sh -c "echo NULL >$TPG/nexus && rmdir $TPG $T/loopback/$WWN $T/loopback"
ok "remove the backstores" sh -c "for i in 3 2 1 0; do rmdir $T/core/iblock_\$i/s80\$i $T/core/iblock_\$i || exit 1; done"
ok "modprobe -r tcm_loop target_core_iblock target_core_mod" modprobe -r tcm_loop target_core_iblock target_core_mod
ok "remove devices a b c d" sh -c ". /tests/conform-lib.sh && cdev_remove a && cdev_remove b && cdev_remove c && cdev_remove d"
ok "modprobe -r ftlblk" modprobe -r ftlblk
check_dmesg
done_testing
