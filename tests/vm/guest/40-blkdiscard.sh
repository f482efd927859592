#!/bin/sh
# blkdiscard on a written device: discarded ranges read back as zeroes,
# their neighbours keep their data, and the statistics count exactly the
# flash pages fully covered (unmapped) and the sectors of partly covered
# ones (zeroed by read-modify-write). Invalid ranges are EINVAL, a device
# with discard=0 EOPNOTSUPP; max_discard_sectors splits requests; fio's
# trim-then-write with verification.
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
need_cmd blkdiscard blkop fio
plan 77

TR=/sys/kernel/tracing
KEYS="discard_requests discard_ranges discard_sectors pages_discarded
valid_pages_discarded sectors_zeroed valid_pages host_pages_written data_bytes"

# snap/deltas (lib.sh) work on these; _b_* are set by snap.
_b_discard_requests=0 _b_pages_discarded=0
# range FILE OFF LEN: LEN bytes at OFF (both multiples of 512) on stdout.
range() {
	case $1 in
	# busybox dd reads through the cache when its 512-byte buffer is unfit
	# for O_DIRECT: drop the cache first so the device itself is read.
	/dev/*) blockdev --flushbufs "$1"
		dd if="$1" bs=512 skip=$(($2 / 512)) count=$(($3 / 512)) iflag=direct 2>/dev/null ;;
	*) dd if="$1" bs=512 skip=$(($2 / 512)) count=$(($3 / 512)) 2>/dev/null ;;
	esac
}
nonzero() { range "$@" | tr -d '\000' | wc -c; }
# same A B OFF LEN: LEN bytes at OFF read in full from both and are equal
# (a read past the end is short, so it cannot pass as "equal").
same() {
	[ "$(range "$1" "$3" "$4" | wc -c)" = "$4" ] &&
	[ "$(range "$2" "$3" "$4" | wc -c)" = "$4" ] &&
	[ "$(range "$1" "$3" "$4" | md5sum)" = "$(range "$2" "$3" "$4" | md5sum)" ]
}
# neighbours OFF1 OFF2: the 4 KiB pages at OFF1 and OFF2 match the reference.
neighbours() { same "/dev/$D" /tmp/d.ref "$1" 4096 && same "/dev/$D" /tmp/d.ref "$2" 4096; }
# zero_ref OFF LEN: the reference image gets the zeroes the device should.
zero_ref() { dd if=/dev/zero of=/tmp/d.ref bs=512 seek=$(($1 / 512)) count=$(($2 / 512)) conv=notrunc 2>/dev/null; }

# discard DESC OFF LEN EXPECTED_DELTAS: blkdiscard OFF LEN; the range
# reads as zeroes, the flash page before and after it are unchanged, the
# whole device equals the reference image, and the counters moved by
# exactly EXPECTED_DELTAS.
discard() {
	x_d=$1 x_off=$2 x_len=$3
	snap "$D"
	ok "$x_d: blkdiscard -o $x_off -l $x_len" blkdiscard -f -o "$x_off" -l "$x_len" "/dev/$D"
	is "$(deltas "$D")" "$4" "$x_d: counters"
	is "$(nonzero "/dev/$D" "$x_off" "$x_len")" 0 "$x_d: the range reads as zeroes"
	x_pb=$(((x_off / 4096 - 1) * 4096)) x_pa=$((((x_off + x_len + 4095) / 4096) * 4096))
	# At the end of the device there is no page after: take the second
	# page before instead, so both checks read real data.
	[ "$x_pa" -lt $((32 << 20)) ] || x_pa=$((x_pb - 4096))
	ok "$x_d: the neighbouring pages $x_pb and $x_pa are unchanged" \
		neighbours "$x_pb" "$x_pa"
	zero_ref "$x_off" "$x_len"
	ok "$x_d: the whole device equals the reference with the range zeroed" cmp "/dev/$D" /tmp/d.ref
}

# Leave the VM clean for the next test even if this one stops early. The
# tracepoint stays enabled for the whole test (toggling it patches kernel
# text, slow under TCG); each traced step clears the buffer first.
cleanup() {
	[ -e $TR/events/ftlblk ] && echo 0 > $TR/events/ftlblk/ftlblk_discard/enable
	for n in d s n; do [ -d "$CFS/$n" ] && rmdir "$CFS/$n"; done
	rm -f /tmp/d.ref /tmp/n.ref /tmp/d-fio.log
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
echo 1 > $TR/events/ftlblk/ftlblk_discard/enable
# 32 MiB, 512-byte sectors, 4 KiB pages: 8192 logical pages.
D=$(mkdev d size=32 blocksize=512 pages_per_block=64)
ok "device d is $D" test -b "/dev/$D"
ok "fill $D with random data" sh -c \
	"dd if=/dev/urandom of=/tmp/d.ref bs=1M count=32 2>/dev/null && dd if=/tmp/d.ref of=/dev/$D bs=1M oflag=direct 2>/dev/null"
is "$(st "$D" valid_pages)" 8192 "all 8192 pages valid"

echo > $TR/trace
discard "aligned 256 KiB" $((1 << 20)) $((256 << 10)) \
	"discard_requests=1 discard_ranges=1 discard_sectors=512 pages_discarded=64 valid_pages_discarded=64 sectors_zeroed=0 valid_pages=-64 host_pages_written=0 data_bytes=-262144"
is "$(grep -o "ftlblk_discard: .*" $TR/trace)" "ftlblk_discard: $D sector=2048 nr_sectors=512" \
	"one ftlblk_discard trace event: sector=2048 nr_sectors=512"

# 1024 bytes inside page 1: two sectors zeroed by read-modify-write.
snap "$D"
ok "sub-page: blkdiscard -o 5120 -l 1024" blkdiscard -f -o 5120 -l 1024 "/dev/$D"
is "$(deltas "$D")" \
	"discard_requests=1 discard_ranges=1 discard_sectors=2 pages_discarded=0 valid_pages_discarded=0 sectors_zeroed=2 valid_pages=0 host_pages_written=1 data_bytes=0" \
	"sub-page: 2 sectors zeroed, no page discarded, the page programmed once"
is "$(nonzero "/dev/$D" 5120 1024)" 0 "sub-page: those 1024 bytes read as zeroes"
ok "sub-page: bytes 0..1023 of the page unchanged" same "/dev/$D" /tmp/d.ref 4096 1024
ok "sub-page: bytes 2048..4095 of the page unchanged" same "/dev/$D" /tmp/d.ref 6144 2048
zero_ref 5120 1024
ok "sub-page: the whole device equals the reference" cmp "/dev/$D" /tmp/d.ref

# 3072 bytes at the end of page 512, pages 513..515, 1024 bytes of 516.
# The block layer splits the unaligned head off into its own bio, so the
# one request carries two ranges.
echo > $TR/trace
discard "head+middle+tail" $(((512 * 4096) + 1024)) $((3072 + 3 * 4096 + 1024)) \
	"discard_requests=1 discard_ranges=2 discard_sectors=32 pages_discarded=3 valid_pages_discarded=3 sectors_zeroed=8 valid_pages=-3 host_pages_written=2 data_bytes=-12288"
is "$(grep -o "ftlblk_discard: .*" $TR/trace | sed 's/ftlblk_discard: //' | tr '\n' ' ' | sed 's/ $//')" \
	"$D sector=4098 nr_sectors=6 $D sector=4104 nr_sectors=26" \
	"head+middle+tail: traced as the 6-sector head and the 26-sector rest"

# Page 600 zeroed in two halves: the second leaves it all zero, so it is
# unmapped rather than programmed (and still not counted as discarded).
discard "first half of page 600" $((600 * 4096)) 2048 \
	"discard_requests=1 discard_ranges=1 discard_sectors=4 pages_discarded=0 valid_pages_discarded=0 sectors_zeroed=4 valid_pages=0 host_pages_written=1 data_bytes=0"
discard "second half of page 600" $((600 * 4096 + 2048)) 2048 \
	"discard_requests=1 discard_ranges=1 discard_sectors=4 pages_discarded=0 valid_pages_discarded=0 sectors_zeroed=4 valid_pages=-1 host_pages_written=0 data_bytes=-4096"

# Discarding unmapped pages counts them, but not as valid ones.
discard "already discarded 256 KiB" $((1 << 20)) $((256 << 10)) \
	"discard_requests=1 discard_ranges=1 discard_sectors=512 pages_discarded=64 valid_pages_discarded=0 sectors_zeroed=0 valid_pages=0 host_pages_written=0 data_bytes=0"

# A range over several erase blocks (64 pages each), unaligned to them.
discard "1 MiB across erase blocks" $(((5 << 20) + 96 * 4096)) $((1 << 20)) \
	"discard_requests=1 discard_ranges=1 discard_sectors=2048 pages_discarded=256 valid_pages_discarded=256 sectors_zeroed=0 valid_pages=-256 host_pages_written=0 data_bytes=-1048576"

# The last page of the device.
discard "last page" $(((32 << 20) - 4096)) 4096 \
	"discard_requests=1 discard_ranges=1 discard_sectors=8 pages_discarded=1 valid_pages_discarded=1 sectors_zeroed=0 valid_pages=-1 host_pages_written=0 data_bytes=-4096"

# ---- invalid ranges ------------------------------------------------------
snap "$D"
is "$(blkop discard /dev/"$D" 513 4096)" EINVAL "BLKDISCARD at offset 513: EINVAL"
is "$(blkop discard /dev/"$D" 4096 1000)" EINVAL "BLKDISCARD of 1000 bytes: EINVAL"
is "$(blkop discard /dev/"$D" 4096 0xfffffffffffff000)" EINVAL "BLKDISCARD whose end overflows 2^64: EINVAL"
is "$(blkop discard /dev/"$D" $(((32 << 20) - 4096)) 8192)" EINVAL "BLKDISCARD past the end: EINVAL"
is "$(blkop discard /dev/"$D" $((32 << 20)) 4096)" EINVAL "BLKDISCARD starting at the end: EINVAL"
out=$(blkdiscard -f -o 513 -l 4096 /dev/"$D" 2>&1)
s=$?
ok "blkdiscard -o 513 exits non-zero ($s: $out)" test $s != 0
is "$(deltas "$D")" \
	"discard_requests=0 discard_ranges=0 discard_sectors=0 pages_discarded=0 valid_pages_discarded=0 sectors_zeroed=0 valid_pages=0 host_pages_written=0 data_bytes=0" \
	"refused discards reach no counter"
ok "refused discards leave the data alone" cmp "/dev/$D" /tmp/d.ref

# ---- fio: trim then write each block, verified ----------------------------
snap "$D"
ok "fio rw=randtrimwrite 32 MiB, 4 KiB, verify crc32c" \
	fio --eta=never --name=trimwrite --filename=/dev/"$D" --rw=randtrimwrite --bs=4k \
	--direct=1 --size=32M --verify=crc32c --verify_fatal=1 --do_verify=1 \
	--randrepeat=0 --output=/tmp/d-fio.log
d_req=$(($(st "$D" discard_requests) - _b_discard_requests))
d_pages=$(($(st "$D" pages_discarded) - _b_pages_discarded))
is "$d_req $d_pages" "8192 8192" "fio's 8192 trims: 8192 requests, 8192 pages discarded"
is "$(st "$D" valid_pages)" 8192 "every page rewritten after its trim"
ok "fio verified 32 MiB" grep -q "READ: .*io=32.0MiB" /tmp/d-fio.log
rm -f /tmp/d.ref /tmp/d-fio.log

# ---- max_discard_sectors splits, one range per request, 4 KiB sectors ----
S=$(mkdev s size=16 blocksize=4096 pages_per_block=64 max_discard_segments=1 max_discard_sectors=64)
ok "device s is $S" test -b "/dev/$S"
is "$(sysfs_read /sys/block/"$S"/queue/discard_max_bytes)" 32768 "discard_max_bytes 32768"
ok "fill $S" dd if=/dev/urandom of=/dev/"$S" bs=1M count=16 oflag=direct
snap "$S"
echo > $TR/trace
ok "blkdiscard 256 KiB at 1 MiB" blkdiscard -f -o $((1 << 20)) -l $((256 << 10)) /dev/"$S"
is "$(deltas "$S")" \
	"discard_requests=8 discard_ranges=8 discard_sectors=512 pages_discarded=64 valid_pages_discarded=64 sectors_zeroed=0 valid_pages=-64 host_pages_written=0 data_bytes=-262144" \
	"split into 8 requests of 64 sectors, one range each"
exp=
for i in 0 1 2 3 4 5 6 7; do exp="$exp $S sector=$((2048 + 64 * i)) nr_sectors=64"; done
is "$(grep -o "ftlblk_discard: .*" $TR/trace | sed 's/ftlblk_discard: //' | tr '\n' ' ' | sed 's/ $//')" "${exp# }" \
	"8 trace events of 64 sectors covering the range in order"
is "$(nonzero /dev/"$S" $((1 << 20)) $((256 << 10)))" 0 "the range reads as zeroes"
is "$(blkop discard /dev/"$S" 512 4096)" EINVAL "4 KiB-sector device: BLKDISCARD at 512: EINVAL"
is "$(blkop discard /dev/"$S" 4096 512)" EINVAL "4 KiB-sector device: 512-byte BLKDISCARD: EINVAL"

# ---- discard=0 -------------------------------------------------------------
N=$(mkdev n size=16 pages_per_block=64 discard=0)
ok "device n is $N" test -b "/dev/$N"
is "$(sysfs_read /sys/block/"$N"/queue/discard_max_bytes)" 0 "discard=0: discard_max_bytes 0"
ok "fill $N" sh -c "dd if=/dev/urandom of=/tmp/n.ref bs=1M count=16 2>/dev/null && dd if=/tmp/n.ref of=/dev/$N bs=1M oflag=direct 2>/dev/null"
is "$(blkop discard /dev/"$N" 0 1048576)" EOPNOTSUPP "discard=0: BLKDISCARD is EOPNOTSUPP"
ok "discard=0: blkdiscard fails" sh -c "! blkdiscard -f /dev/$N 2>/dev/null"
is "$(st "$N" discard_requests) $(st "$N" pages_discarded)" "0 0" "discard=0: no discard reached the device"
ok "discard=0: data unchanged" cmp /dev/"$N" /tmp/n.ref
rm -f /tmp/n.ref

echo 0 > $TR/events/ftlblk/ftlblk_discard/enable
for n in d s n; do rmdir "$CFS/$n"; done
ok "modprobe -r ftlblk" modprobe -r ftlblk
check_dmesg
done_testing
