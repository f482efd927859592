#!/bin/sh
# vfat mounted with -o discard on ftlblk: deleting a file discards exactly
# its clusters (the traced ranges' union equals them, nothing else) and the
# FTL unmaps exactly that many pages; fstrim discards exactly the free
# clusters; the other files survive; mkfs.ext4 discards the whole device
# unless told -E nodiscard.
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
need_cmd mkfs.vfat mkfs.ext4 fstrim fibmap
plan 43

TR=/sys/kernel/tracing
MNT=/tmp/v-mnt
# le OFF LEN: little-endian unsigned integer in the device's boot sector.
le() {
	od -A n -t u1 -j "$1" -N "$2" "/dev/$V" |
		awk '{ for (i = NF; i >= 1; i--) v = v * 256 + $i } END { print v + 0 }'
}
# merge: "START LEN" lines (any order) -> sorted union as "START:LEN".
merge() {
	sort -n -k1,1 | awk '
		{ s = $1; e = $1 + $2
		  if (n && s <= ce) { if (e > ce) ce = e; next }
		  if (n) print cs ":" ce - cs
		  cs = s; ce = e; n = 1 }
		END { if (n) print cs ":" ce - cs }'
}
# clusters FILE: the file's clusters as device sector ranges "START LEN"
# (FIBMAP extents rounded out to cluster boundaries).
clusters() {
	fibmap "$1" | awk -v ds="$DS" -v spc="$SPC" '{
		s = $1 / 512; e = ($1 + $2) / 512
		s = ds + int((s - ds) / spc) * spc
		e = ds + int((e - ds + spc - 1) / spc) * spc
		print s, e - s }'
}
# fibmap_matches FILE: every FIBMAP extent holds the file's bytes.
fibmap_matches() {
	_fo=0
	fibmap "$1" > /tmp/v.map || return 1
	[ -s /tmp/v.map ] || return 1
	while read -r _off _len; do
		[ "$(dd if=/dev/"$V" bs=512 skip=$((_off / 512)) count=$((_len / 512)) iflag=direct 2>/dev/null | md5sum)" = \
		  "$(dd if="$1" bs=512 skip=$((_fo / 512)) count=$((_len / 512)) 2>/dev/null | md5sum)" ] || {
			echo "extent $_off+$_len (file offset $_fo) differs"; return 1; }
		_fo=$((_fo + _len))
	done < /tmp/v.map
	[ "$_fo" -ge "$(stat -c %s "$1")" ]
}
# traced: the ftlblk_discard events of $V as "START LEN" lines.
traced() {
	grep -o "ftlblk_discard: $V sector=[0-9]* nr_sectors=[0-9]*" $TR/trace |
		sed 's/.*sector=\([0-9]*\) nr_sectors=\([0-9]*\)/\1 \2/'
}
sum2() { awk '{ s += $2 } END { print s + 0 }'; }
# The tracepoint stays enabled for the whole test (toggling it patches
# kernel text, slow under TCG); a traced step starts with an empty buffer.
trace_on() { echo > $TR/trace; }
trace_off() { :; }
cleanup() {
	[ -e $TR/events/ftlblk ] && echo 0 > $TR/events/ftlblk/ftlblk_discard/enable
	grep -q " $MNT " /proc/mounts && umount $MNT
	[ -d "$CFS/v" ] && rmdir "$CFS/v"
	rm -f /tmp/v.*
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
echo 1 > $TR/events/ftlblk/ftlblk_discard/enable
modprobe -q vfat; modprobe -q nls_cp437; modprobe -q nls_utf8
mkdir "$CFS/v" && echo 64 > "$CFS/v/size" && echo 64 > "$CFS/v/pages_per_block" &&
	echo 1 > "$CFS/v/power"
V=ftlblk$(cat "$CFS/v/index")
ok "64 MiB device $V" test -b "/dev/$V"
LP=$(st "$V" logical_pages)

# ---- vfat with 4 KiB clusters ------------------------------------------
ok "mkfs.vfat -s 8 (4 KiB clusters)" mkfs.vfat -s 8 -n FTLTEST /dev/"$V"
BPS=$(le 11 2) SPC=$(le 13 1) RES=$(le 14 2) NFATS=$(le 16 1) ROOTENTS=$(le 17 2)
FATSZ=$(le 22 2) TOT=$(le 19 2)
[ "$FATSZ" = 0 ] && FATSZ=$(le 36 4)
[ "$TOT" = 0 ] && TOT=$(le 32 4)
DS=$((RES + NFATS * FATSZ + (ROOTENTS * 32 + BPS - 1) / BPS))	# data area, sectors
NCL=$(((TOT - DS) / SPC))
diag "boot sector: bps=$BPS spc=$SPC reserved=$RES fats=$NFATS x $FATSZ rootents=$ROOTENTS total=$TOT -> data at sector $DS, $NCL clusters"
is "$BPS $SPC" "512 8" "512-byte sectors, 8 per cluster"
is "$((DS % 8))" 0 "the data area starts on a flash page boundary"
mkdir -p $MNT
ok "mount -o discard" mount -t vfat -o discard,iocharset=utf8 /dev/"$V" $MNT

# a: contiguous; b, c: fragmented by interleaved appends; d: not a whole
# number of clusters; e: one sector.
ok "write a.bin (100 KiB)" dd if=/dev/urandom of=$MNT/a.bin bs=1k count=100
i=0
while [ $i -lt 6 ]; do
	dd if=/dev/urandom of=$MNT/b.bin bs=1k count=12 oflag=append conv=notrunc 2>/dev/null
	dd if=/dev/urandom of=$MNT/c.bin bs=1k count=20 oflag=append conv=notrunc 2>/dev/null
	i=$((i + 1))
done
is "$(stat -c %s $MNT/b.bin) $(stat -c %s $MNT/c.bin)" "73728 122880" "b.bin 72 KiB, c.bin 120 KiB, appended in turns"
ok "write d.bin (1 MiB + 3 KiB)" dd if=/dev/urandom of=$MNT/d.bin bs=1k count=1027
ok "write e.bin (512 bytes)" dd if=/dev/urandom of=$MNT/e.bin bs=512 count=1
sync
for f in a b c d e; do md5sum < $MNT/$f.bin > /tmp/v.$f.md5; done
for f in a b c d e; do
	ok "FIBMAP extents of $f.bin hold its data on the device" fibmap_matches $MNT/$f.bin
done
is "$(fibmap $MNT/c.bin | wc -l)" 6 "c.bin is in 6 fragments"

# delete FILE: rm + sync discards exactly the file's clusters.
delete() {
	_f=$1
	clusters $MNT/"$_f" | merge > /tmp/v.want
	_want_sec=$(tr ':' ' ' < /tmp/v.want | sum2)
	_b_pd=$(st "$V" pages_discarded) _b_vpd=$(st "$V" valid_pages_discarded)
	_b_vp=$(st "$V" valid_pages) _b_sz=$(st "$V" sectors_zeroed)
	trace_on
	ok "rm $_f; sync" sh -c "rm $MNT/$_f && sync"
	trace_off
	traced > /tmp/v.got
	diag "$_f: clusters $(tr '\n' ' ' < /tmp/v.want); $(wc -l < /tmp/v.got) discard ranges traced"
	is "$(merge < /tmp/v.got | tr '\n' ' ')" "$(tr '\n' ' ' < /tmp/v.want)" \
		"$_f: the traced discards cover exactly its clusters"
	is "$(sum2 < /tmp/v.got)" "$_want_sec" "$_f: no sector discarded twice ($_want_sec sectors)"
	is "$(($(st "$V" pages_discarded) - _b_pd)) $(($(st "$V" valid_pages_discarded) - _b_vpd)) $((_b_vp - $(st "$V" valid_pages))) $(($(st "$V" sectors_zeroed) - _b_sz))" \
		"$((_want_sec / 8)) $((_want_sec / 8)) $((_want_sec / 8)) 0" \
		"$_f: pages_discarded, valid_pages_discarded and valid_pages moved by its $((_want_sec / 8)) pages"
}
delete c.bin
delete d.bin
is "$(wc -l < /tmp/v.want)" 1 "d.bin was one contiguous run"
is "$(tr ':' ' ' < /tmp/v.want | sum2)" $((257 * 8)) "d.bin: 257 clusters (1027 KiB rounded up)"

# ---- fstrim: exactly the free clusters --------------------------------
for f in a b e; do clusters $MNT/$f.bin; done | merge | tr ':' ' ' > /tmp/v.used
# Free = the data area minus the used clusters.
awk -v ds="$DS" -v end="$((DS + NCL * SPC))" '
	{ if ($1 > p) print p, $1 - p; p = $1 + $2 }
	BEGIN { p = ds }
	END { if (end > p) print p, end - p }' /tmp/v.used | merge > /tmp/v.free
free_sec=$(tr ':' ' ' < /tmp/v.free | sum2)
b_pd=$(st "$V" pages_discarded) b_vpd=$(st "$V" valid_pages_discarded)
trace_on
ok "fstrim $MNT" fstrim $MNT
trace_off
traced > /tmp/v.got
is "$(merge < /tmp/v.got | tr '\n' ' ')" "$(tr '\n' ' ' < /tmp/v.free)" \
	"fstrim discards exactly the free clusters"
is "$(($(st "$V" pages_discarded) - b_pd))" $((free_sec / 8)) "fstrim: pages_discarded rose by the $((free_sec / 8)) free pages"
is "$(($(st "$V" valid_pages_discarded) - b_vpd))" 0 "fstrim: no free page still held data (deletion had unmapped them)"

ok "umount, mount again" sh -c "umount $MNT && mount -t vfat -o discard,iocharset=utf8 /dev/$V $MNT"
for f in a b e; do
	is "$(md5sum < $MNT/$f.bin)" "$(cat /tmp/v.$f.md5)" "$f.bin intact"
done
ok "c.bin and d.bin are gone" test ! -e $MNT/c.bin -a ! -e $MNT/d.bin
ok "fsck.fat finds nothing wrong" sh -c "umount $MNT && fsck.fat -n /dev/$V"

# ---- mkfs.ext4 discards the whole device, unless -E nodiscard ------------
b_pd=$(st "$V" pages_discarded) b_req=$(st "$V" discard_requests)
ok "mkfs.ext4" mkfs.ext4 -q -F /dev/"$V"
is "$(($(st "$V" pages_discarded) - b_pd))" "$LP" "mkfs.ext4: pages_discarded rose by logical_pages ($LP)"
b_pd=$(st "$V" pages_discarded) b_req=$(st "$V" discard_requests)
ok "mkfs.ext4 -E nodiscard" mkfs.ext4 -q -F -E nodiscard /dev/"$V"
is "$(($(st "$V" pages_discarded) - b_pd)) $(($(st "$V" discard_requests) - b_req))" "0 0" \
	"mkfs.ext4 -E nodiscard: no discard"
ok "e2fsck -fn is clean" e2fsck -fn /dev/"$V"

rm -f /tmp/v.*
echo 0 > $TR/events/ftlblk/ftlblk_discard/enable
rmdir "$CFS/v"
ok "modprobe -r ftlblk" modprobe -r ftlblk
check_dmesg
done_testing
