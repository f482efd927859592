#!/bin/sh
# reset_stats: any non-empty write ("1", "0", "abc", ...) zeroes every
# counter of that device (host and NAND writes, reads, GC, wear leveling,
# erases, discards, write-zeroes, flushes, unmapped reads, waf) and nothing
# else: the state files (valid pages, free blocks, erase counts, memory,
# geometry) keep their values, and another device's counters are untouched.
# A zero-length write never reaches the driver (sysfs drops it); the file is
# write-only.
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
need_cmd errno-write blkop blkdiscard fio
plan 30

COUNTERS="host_pages_written host_pages_read nand_pages_written
gc_relocations gc_runs wl_relocations wl_runs erases discard_requests
discard_ranges discard_sectors pages_discarded valid_pages_discarded
sectors_zeroed write_zeroes_requests flush_requests unmapped_reads"
STATE="valid_pages free_blocks erase_min erase_max erase_mean data_bytes pool_bytes
metadata_bytes logical_pages physical_blocks spare_blocks pages_per_block
gc_policy"

# vals DEV NAMES: "name=value ..." of DEV's statistics files NAMES.
vals() {
	_o=
	for _k in $2; do _o="$_o $_k=$(st "$1" "$_k")"; done
	echo "${_o# }"
}
# zeroes NAMES: what vals prints when every one is 0.
zeroes() {
	_o=
	for _k in $1; do _o="$_o $_k=0"; done
	echo "${_o# }"
}
# nonzero DEV: the counters of DEV that are 0 (empty if none).
still_zero() {
	_o=
	for _k in $COUNTERS; do [ "$(st "$1" "$_k")" != 0 ] || _o="$_o $_k"; done
	echo "${_o# }"
}
# activity DEV: a little of everything a counter counts except GC and WL.
# The first write is flushed so that the discard after it finds its pages
# in the FTL: a discard of a page that is only in the write cache replaces
# the cached write, and valid_pages_discarded would then move only if the
# random writes before had happened to write that page (about 95 %).
activity() {
	dd if=/dev/urandom of=/dev/"$1" bs=64k count=2 seek=3 oflag=direct conv=fsync 2>/dev/null &&
	dd if=/dev/"$1" of=/dev/null bs=64k count=2 skip=3 iflag=direct 2>/dev/null &&
	blkdiscard -f -o $((3 * 65536)) -l 4096 /dev/"$1" 2>/dev/null &&
	blkdiscard -f -o $((3 * 65536 + 8192 + 512)) -l 1024 /dev/"$1" 2>/dev/null &&
	dd if=/dev/"$1" of=/dev/null bs=4k count=1 skip=48 iflag=direct 2>/dev/null &&
	blkop zeroout /dev/"$1" $((4 * 65536)) 4096 >/dev/null &&
	dd if=/dev/urandom of=/dev/"$1" bs=4k count=1 conv=fsync 2>/dev/null
}

cleanup() {
	for n in r o; do [ -d "$CFS/$n" ] && rmdir "$CFS/$n"; done
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
# 16 MiB, 16 pages per block, a volatile write cache (so flushes arrive)
# of 1 MiB (so writes reach the FTL before a flush), wear leveling at the
# smallest spread: GC and WL both run.
R=$(mkdev r size=16 pages_per_block=16 wl_threshold=1 write_cache=1 cache_mib=1)
O=$(mkdev o size=16 pages_per_block=16)
ok "devices r=$R and o=$O" test -b "/dev/$R" -a -b "/dev/$O"
ok "$R: 48 MiB of random 4 KiB writes (GC, WL)" \
	fio --eta=never --name=w --filename=/dev/"$R" --rw=randwrite --bs=4k \
	--direct=1 --size=16M --io_size=48M --norandommap --randrepeat=0 \
	--output=/dev/null
ok "$R: reads, discards (whole and partial page), write-zeroes, fsync" activity "$R"
ok "$O: some activity" activity "$O"
is "$(still_zero "$R")" "" "$R: every counter is non-zero before the reset"
o_before=$(vals "$O" "$COUNTERS")

# ---- each input resets -------------------------------------------------
first=yes
for input in 1 0 abc " "; do
	if [ -z "$first" ]; then
		activity "$R"
		# (no GC/WL now: only the counters the activity moves)
	fi
	first=
	state=$(vals "$R" "$STATE")
	isnt "$(st "$R" host_pages_written)" 0 \
		"'$input': there is something to reset (host_pages_written)"
	is "$(errno-write /sys/block/"$R"/ftl/reset_stats "$input")" ok \
		"reset_stats '$input' accepted"
	is "$(vals "$R" "$COUNTERS") waf=$(st "$R" waf)" "$(zeroes "$COUNTERS") waf=0.000" \
		"'$input': every counter of $R is 0, waf 0.000"
	is "$(vals "$R" "$STATE")" "$state" "'$input': the state files of $R are unchanged"
done
is "$(vals "$O" "$COUNTERS")" "$o_before" "$O's counters are untouched by $R's resets"

# ---- a zero-length write does not reach the driver ----------------------
activity "$R"
before=$(vals "$R" "$COUNTERS")
is "$(errno-write /sys/block/"$R"/ftl/reset_stats "")" ok "zero-length write: no error"
is "$(vals "$R" "$COUNTERS")" "$before" "zero-length write: counters unchanged (sysfs drops it)"
ok "reset_stats cannot be read" sh -c "! cat /sys/block/$R/ftl/reset_stats 2>/dev/null"

# The counters count again from 0 after a reset ($O is nearly empty: no GC).
errno-write /sys/block/"$O"/ftl/reset_stats 1 >/dev/null
ok "write 64 KiB to $O" dd if=/dev/urandom of=/dev/"$O" bs=64k count=1 seek=100 oflag=direct
is "$(st "$O" host_pages_written) $(st "$O" nand_pages_written) $(st "$O" waf)" "16 16 1.000" \
	"after a reset 64 KiB count as 16 host and 16 NAND pages, waf 1.000"

for n in r o; do rmdir "$CFS/$n"; done
ok "modprobe -r ftlblk" modprobe -r ftlblk
check_dmesg
done_testing
