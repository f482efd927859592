#!/bin/sh
# shards=N: the device is N independent FTLs, each with its own lock,
# blocks and GC, dealt erase-block stripes of the logical pages
# (ftl/shard.h). What a sharded device must still be: one disk whose data
# survive concurrent writers and GC in every shard, whose discards and
# write-zeroes cross shard boundaries exactly, whose counters add up over
# the shards, whose blocks are numbered device-wide (every shard's erases
# show up in the trace, none beyond the device), whose write cache keeps
# exactly what was flushed across a power cut, and whose configurations
# are refused, with the field named, when a shard could not work.
# (Exact agreement with ftlsim --shards: 85-trace-replay.)
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
need_cmd fio blkdiscard cmp blkop
plan 29

TR=/sys/kernel/tracing
cleanup() {
	echo 0 > "$TR/events/ftlblk/ftlblk_erase/enable" 2>/dev/null
	for n in s4 s2c bad1 bad2; do
		[ -d "$CFS/$n" ] && rmdir "$CFS/$n"
	done
	rm -f /tmp/sh.ref /tmp/sh.out /tmp/sh.B
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0

# ---- refused configurations: EINVAL, one line naming shards ----
mkdir "$CFS/bad1"
echo 65 > "$CFS/bad1/shards" 2>/dev/null
is "$? $(cat "$CFS/bad1/shards")" "1 1" "shards=65 refused, the item keeps 1"
ok "dmesg names shards and its range" sh -c \
	"dmesg | tail -n 5 | grep -q 'invalid shards.*1\\.\\.64'"
# 4 MiB of 1 MiB blocks: 4 erase blocks cannot feed 8 shards.
mkdir "$CFS/bad2"
echo 4 > "$CFS/bad2/size"
echo 8 > "$CFS/bad2/shards"
echo 1 > "$CFS/bad2/power" 2>/dev/null
is "$? $(cat "$CFS/bad2/power")" "1 0" "8 shards of 4 erase blocks: power-on refused"
ok "dmesg says why, naming shards" sh -c \
	"dmesg | tail -n 5 | grep -q 'invalid shards 8: allowed 1\\.\\.64 shards that each keep a working FTL; with these: '"

# ---- four shards: data, GC, counters, block numbers ----
D=$(mkdev s4 size=64 pages_per_block=64 op_percent=10 shards=4)
ok "/dev/$D: 4 shards of 64 MiB" test -b "/dev/$D"
is "$(st "$D" shards) $(st "$D" logical_pages)" "4 16384" \
	"shards 4, logical_pages 16384: the device's, not a shard's"
# Each shard: 64 logical blocks, 10 % spare rounded up: 7 -> 71 blocks.
is "$(st "$D" physical_blocks)" "284" "physical_blocks 284: the four shards' 71 added"
echo 1 > "$TR/events/ftlblk/ftlblk_erase/enable"
echo > "$TR/trace"
dd if=/dev/urandom of=/tmp/sh.ref bs=1M count=64 2>/dev/null
ok "64 MiB written" dd if=/tmp/sh.ref of="/dev/$D" bs=1M oflag=direct 2>/dev/null
# Two writers side by side, 3 x the capacity of random 4 KiB overwrites
# with verification (each job its own half, so the verify is exact).
ok "fio: 2 jobs x 96 MiB random 4 KiB writes, crc32c verified" fio \
	--eta=never --name=w --filename="/dev/$D" --direct=1 --ioengine=libaio \
	--iodepth=8 --rw=randwrite --bs=4k --numjobs=2 --size=32m \
	--offset_increment=32m --io_size=96m --verify=crc32c \
	--do_verify=1 --randrepeat=0 --output=/tmp/sh.out
ok "GC ran in the shards: gc_relocations $(st "$D" gc_relocations) > 0, waf $(st "$D" waf)" \
	test "$(st "$D" gc_relocations)" -gt 0
# Counters add up: every logical page was written; valid_pages is all.
is "$(st "$D" valid_pages)" "16384" "valid_pages 16384: every page mapped in some shard"
# Erases of every shard, numbered device-wide (shard k owns 71k..71k+70).
grep -o 'block=[0-9]*' "$TR/trace" | cut -d= -f2 |
	awk '{ s[int($1 / 71)]++; if ($1 >= 284) bad++ }
	     END { print (0 in s) + (1 in s) + (2 in s) + (3 in s), bad + 0 }' > /tmp/sh.out
is "$(cat /tmp/sh.out)" "4 0" "erase events from all 4 shards' blocks, none beyond block 283"
echo 0 > "$TR/events/ftlblk/ftlblk_erase/enable"

# ---- requests across stripe boundaries (a stripe is 64 pages, 256 KiB) --
dd if="/dev/$D" of=/tmp/sh.ref bs=1M iflag=direct 2>/dev/null
# One 40 KiB request at page 60: pages 60-63 in shard 0, 64-69 in shard 1
# (batches of 16 pages from its start would cross the boundary).
dd if=/dev/urandom of=/tmp/sh.B bs=40k count=1 2>/dev/null
dd if=/tmp/sh.B of="/dev/$D" bs=40k seek=6 count=1 oflag=direct conv=notrunc 2>/dev/null
dd if=/tmp/sh.B of=/tmp/sh.ref bs=40k seek=6 count=1 conv=notrunc 2>/dev/null
dd if="/dev/$D" of=/tmp/sh.out bs=40k skip=6 count=1 iflag=direct 2>/dev/null
ok "a 40 KiB write and read across a stripe boundary read back exactly" cmp -s /tmp/sh.B /tmp/sh.out
# Pages 32..223: from the middle of stripe 0 (shard 0) to stripe 3 (shard 3).
ok "blkdiscard 768 KiB across four shards" blkdiscard -o $((32 * 4096)) -l $((192 * 4096)) "/dev/$D"
dd if=/dev/zero of=/tmp/sh.ref bs=4096 seek=32 count=192 conv=notrunc 2>/dev/null
# Write-zeroes, unaligned to stripes, across shards 1 and 2 (BLKZEROOUT
# sets REQ_NOUNMAP: the pages are programmed with zeroes, kept mapped).
ok "write-zeroes 384 KiB across shards" blkdiscard -z -o $((100 * 4096 + 512 * 4096)) -l $((96 * 4096)) "/dev/$D"
dd if=/dev/zero of=/tmp/sh.ref bs=4096 seek=612 count=96 conv=notrunc 2>/dev/null
dd if="/dev/$D" of=/tmp/sh.out bs=1M iflag=direct 2>/dev/null
ok "the device reads as the reference: data kept, both ranges zero" cmp -s /tmp/sh.ref /tmp/sh.out
is "$(st "$D" valid_pages)" "$((16384 - 192))" "valid_pages dropped by exactly the 192 discarded pages"
ok "full blkdiscard" blkdiscard "/dev/$D"
is "$(st "$D" valid_pages) $(st "$D" data_bytes)" "0 0" "every shard empty: valid_pages 0, data_bytes 0"

# ---- write cache per shard, power cut: exactly what was flushed ----
W=$(mkdev s2c size=16 pages_per_block=64 op_percent=20 shards=2 write_cache=1)
ok "/dev/$W: 2 shards with the write cache" test -b "/dev/$W"
dd if=/dev/urandom of=/tmp/sh.ref bs=1M count=4 2>/dev/null
dd if=/dev/urandom of=/tmp/sh.B bs=1M count=4 2>/dev/null
dd if=/tmp/sh.ref of="/dev/$W" bs=1M oflag=direct conv=fsync 2>/dev/null
is "$(st "$W" cached_pages) $(st "$W" host_pages_written)" "0 1024" \
	"4 MiB (16 stripes, both shards) written and flushed: all programmed"
dd if=/tmp/sh.B of="/dev/$W" bs=1M oflag=direct 2>/dev/null
is "$(st "$W" cached_pages)" "1024" "4 MiB more, not flushed: 1024 pages cached in the shards"
echo 1 > "/sys/block/$W/ftl/power_cut"
echo 0 > "/sys/block/$W/ftl/power_cut"
is "$(st "$W" pages_lost_at_power_cut) $(st "$W" cached_pages)" "1024 0" \
	"the cut lost the 1024 unflushed pages of both shards"
dd if="/dev/$W" of=/tmp/sh.out bs=1M count=4 iflag=direct 2>/dev/null
ok "the device reads the flushed data" cmp -s /tmp/sh.ref /tmp/sh.out
is "$(blkop fsync "/dev/$W") $(blkop fsync "/dev/$W") $(st "$W" flushes_failed_after_cut)" "EIO ok 1" \
	"the first fsync after the cut reports the lost writes (EIO), once for both shards"
ok "4 MiB written and flushed again" \
	dd if=/tmp/sh.B of="/dev/$W" bs=1M oflag=direct conv=fsync
echo 1 > "/sys/block/$W/ftl/power_cut"
echo 0 > "/sys/block/$W/ftl/power_cut"
dd if="/dev/$W" of=/tmp/sh.out bs=1M count=4 iflag=direct 2>/dev/null
ok "written and flushed again: the new data survive a cut" cmp -s /tmp/sh.B /tmp/sh.out
# The flush that reports the cut logs an I/O error; nothing else may appear.
check_dmesg "no kernel warnings, BUGs or lockdep reports" \
	'WARNING:|BUG:|Oops|general protection|Call Trace|refcount_t:|corruption'
