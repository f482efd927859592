#!/bin/sh
# A full device discarded at once: every page unmapped, all data memory
# freed, everything reads as zeroes. Write-zeroes zeroes too without being
# counted as a discard: with NOUNMAP (BLKZEROOUT, blkdiscard -z) the pages
# stay allocated, without it (fallocate punch-hole) their memory is freed.
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
need_cmd blkdiscard blkop
plan 42

# Non-zero bytes in LEN bytes at OFF of a device (MiB units).
nonzero() { dd if="$1" bs=1M skip="${2:-0}" ${3:+count=$3} iflag=direct 2>/dev/null | tr -d '\000' | wc -c; }
# Non-zero bytes of a device range in 512-byte sectors.
nonzero_s() { dd if="$1" bs=512 skip="$2" count="$3" iflag=direct 2>/dev/null | tr -d '\000' | wc -c; }
ctr() { printf '%s ' "$@" | sed 's/ $//'; }

# Leave the VM clean for the next test even if this one stops early.
cleanup() {
	for n in f g; do [ -d "$CFS/$n" ] && rmdir "$CFS/$n"; done
	rm -f /tmp/f.ref /tmp/f.tail
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
# 64 MiB, 4 KiB pages, 256 per block: 16384 logical pages, 5 spare blocks.
F=$(mkdev f size=64)
ok "device f is $F" test -b "/dev/$F"
ok "64 MiB of random data" dd if=/dev/urandom of=/tmp/f.ref bs=1M count=64
ok "fill $F completely" dd if=/tmp/f.ref of=/dev/"$F" bs=1M oflag=direct
is "$(st "$F" valid_pages)" "$(st "$F" logical_pages)" "valid_pages = logical_pages = $(st "$F" logical_pages)"
is "$(st "$F" data_bytes)" $((64 << 20)) "data_bytes = 64 MiB"

# ---- blkdiscard of the whole device ------------------------------------
echo 1 > /sys/block/"$F"/ftl/reset_stats
ok "blkdiscard -f /dev/$F" blkdiscard -f /dev/"$F"
is "$(st "$F" pages_discarded) $(st "$F" valid_pages_discarded) $(st "$F" discard_sectors) $(st "$F" sectors_zeroed)" \
	"16384 16384 131072 0" "pages_discarded = valid_pages_discarded = logical_pages, 131072 sectors, none zeroed"
is "$(st "$F" valid_pages) $(st "$F" data_bytes)" "0 0" "valid_pages 0, data_bytes 0"
is "$(st "$F" host_pages_written) $(st "$F" nand_pages_written)" "0 0" "a discard programs nothing"
ok "discard requests counted ($(st "$F" discard_requests))" test "$(st "$F" discard_requests)" -ge 1
echo 1 > /sys/block/"$F"/ftl/reset_stats
is "$(nonzero /dev/"$F")" 0 "the whole device reads as zeroes"
is "$(st "$F" host_pages_read) $(st "$F" unmapped_reads)" "16384 16384" "all 16384 pages read were unmapped"

# Refill: the discarded device takes the full capacity again.
ok "refill $F" dd if=/tmp/f.ref of=/dev/"$F" bs=1M oflag=direct
is "$(st "$F" valid_pages) $(st "$F" data_bytes)" "16384 67108864" "refilled: 16384 pages, 64 MiB"
ok "and reads back the data" cmp /dev/"$F" /tmp/f.ref

# ---- write-zeroes --------------------------------------------------------
echo 1 > /sys/block/"$F"/ftl/reset_stats
# BLKZEROOUT of the first 32 MiB: REQ_OP_WRITE_ZEROES with REQ_NOUNMAP.
ok "blkdiscard -z -o 0 -l 32M (BLKZEROOUT)" blkdiscard -f -z -o 0 -l $((32 << 20)) /dev/"$F"
is "$(nonzero /dev/"$F" 0 32)" 0 "the zeroed 32 MiB read as zeroes"
dd if=/tmp/f.ref of=/tmp/f.tail bs=1M skip=32 2>/dev/null
ok "the other 32 MiB are unchanged" sh -c "dd if=/dev/$F bs=1M skip=32 iflag=direct 2>/dev/null | cmp - /tmp/f.tail"
wz=$(st "$F" write_zeroes_requests)
ok "write_zeroes_requests rose ($wz)" test "$wz" -ge 1
is "$(ctr "$(st "$F" discard_requests)" "$(st "$F" pages_discarded)" "$(st "$F" sectors_zeroed)")" "0 0 0" \
	"not counted as a discard"
is "$(st "$F" valid_pages) $(st "$F" data_bytes)" "16384 67108864" "NOUNMAP: the zeroed pages stay allocated"

# fallocate(PUNCH_HOLE) of the last 32 MiB: write-zeroes that may unmap.
ok "punch hole in the last 32 MiB" blkop punch /dev/"$F" $((32 << 20)) $((32 << 20))
is "$(nonzero /dev/"$F" 32 32)" 0 "the punched 32 MiB read as zeroes"
is "$(st "$F" valid_pages) $(st "$F" data_bytes)" "8192 33554432" "punch hole unmaps 8192 pages and frees 32 MiB"
is "$(ctr "$(st "$F" discard_requests)" "$(st "$F" pages_discarded)" "$(st "$F" sectors_zeroed)")" "0 0 0" \
	"still not counted as a discard"
ok "more write_zeroes_requests ($(st "$F" write_zeroes_requests))" test "$(st "$F" write_zeroes_requests)" -gt "$wz"
ok "punch the NOUNMAP-zeroed half" blkop punch /dev/"$F" 0 $((32 << 20))
is "$(st "$F" valid_pages) $(st "$F" data_bytes)" "0 0" "the whole device unmapped, no data memory"

# Sub-page write-zeroes: read-modify-write, but no sectors_zeroed either.
ok "refill the first MiB" dd if=/tmp/f.ref of=/dev/"$F" bs=1M count=1 oflag=direct
echo 1 > /sys/block/"$F"/ftl/reset_stats
ok "punch 1024 bytes at 5120" blkop punch /dev/"$F" 5120 1024
is "$(nonzero_s /dev/"$F" 10 2)" 0 "those 1024 bytes read as zeroes"
ok "the rest of the page is unchanged" sh -c \
	"[ \"\$(dd if=/dev/$F bs=512 skip=8 count=2 iflag=direct 2>/dev/null | md5sum)\" = \"\$(dd if=/tmp/f.ref bs=512 skip=8 count=2 2>/dev/null | md5sum)\" ] &&
	 [ \"\$(dd if=/dev/$F bs=512 skip=12 count=4 iflag=direct 2>/dev/null | md5sum)\" = \"\$(dd if=/tmp/f.ref bs=512 skip=12 count=4 2>/dev/null | md5sum)\" ]"
is "$(ctr "$(st "$F" host_pages_written)" "$(st "$F" valid_pages)" "$(st "$F" sectors_zeroed)" "$(st "$F" pages_discarded)")" "1 256 0 0" \
	"one page programmed, still 256 valid, no discard counted"
rm -f /tmp/f.tail

# ---- 16 KiB flash pages ----------------------------------------------------
G=$(mkdev g size=32 blocksize=4096 page_size=16384 pages_per_block=32)
ok "device g is $G (16 KiB pages)" test -b "/dev/$G"
ok "fill $G" dd if=/tmp/f.ref of=/dev/"$G" bs=1M count=32 oflag=direct
is "$(st "$G" valid_pages) $(st "$G" data_bytes)" "2048 33554432" "2048 pages, 32 MiB"
ok "blkdiscard -f /dev/$G" blkdiscard -f /dev/"$G"
is "$(st "$G" pages_discarded) $(st "$G" valid_pages) $(st "$G" data_bytes)" "2048 0 0" \
	"pages_discarded = logical_pages = 2048, nothing left"
is "$(nonzero /dev/"$G")" 0 "$G reads as zeroes"

rm -f /tmp/f.ref
for n in f g; do rmdir "$CFS/$n"; done
ok "modprobe -r ftlblk" modprobe -r ftlblk
check_dmesg
done_testing
