#!/bin/sh
# Data integrity under garbage collection: fio writes small devices over
# three times with random I/O carrying crc32c headers (4 KiB; mixed
# 512 B..64 KiB from two parallel jobs on two hardware queues; 16 KiB flash
# pages with cost-benefit GC; 1 MiB from two parallel jobs), then reads
# back and checks the last copy of every block it wrote, and GC must have
# run.
#
# The writes are random with overwrites (norandommap) and checked once at
# the end: a block written early has then been relocated by GC many times
# before it is read. (With fio's random map and loops=N every block is
# written exactly once per loop, so GC only ever moves data that the same
# loop overwrites before its verify pass: a GC that corrupts what it moves
# would go unnoticed.)
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
need_cmd fio
plan 40

# Sum of a JSON field over every job of a fio --output-format=json file:
# jsonsum FILE SECTION FIELD, SECTION read/write/trim.
jsonsum() {
	awk -v sec="\"$2\"" -v fld="\"$3\"" '
		$1 == sec && $2 == ":" { in_sec = 1; next }
		in_sec && $1 == fld { v = $3; sub(",", "", v); s += v; in_sec = 0 }
		END { printf "%d\n", s }' "$1"
}

# gc_ran DEV HOST_PAGES: after a fio run, GC erased blocks, the write
# amplification is above 1 and every NAND program is accounted for.
gc_ran() {
	_e=$(st "$1" erases) _g=$(st "$1" gc_runs) _w=$(st "$1" waf)
	_h=$(st "$1" host_pages_written) _nand=$(st "$1" nand_pages_written)
	_r=$(($(st "$1" gc_relocations) + $(st "$1" wl_relocations)))
	diag "$1: erases=$_e gc_runs=$_g waf=$_w host=$_h nand=$_nand relocations=$_r"
	ok "$1: GC ran (erases $_e > 0, gc_runs $_g > 0)" test "$_e" -gt 0 -a "$_g" -gt 0
	ok "$1: waf $_w > 1.000" test "${_w%.*}${_w#*.}" -gt 1000
	is "$_nand" $((_h + _r)) "$1: nand_pages_written = host_pages_written + relocations"
	if [ -n "$2" ]; then
		is "$_h" "$2" "$1: host_pages_written = $2"
	fi
}

# Leave the VM clean for the next test even if this one stops early.
cleanup() {
	for n in a b c d; do [ -d "$CFS/$n" ] && rmdir "$CFS/$n"; done
	rm -f /tmp/fio-*.json /tmp/fio-ctl.log /tmp/fio-ctl.err
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

cd /tmp || exit 1
ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0

# verified DEV JSON CAPACITY: fio read back at least 90 % of CAPACITY in its
# verify pass (random overwrites leave ~5 % of the blocks unwritten), i.e.
# every block it last wrote.
verified() {
	_r=$(jsonsum "$2" read io_bytes)
	ok "fio verified $_r bytes (>= 90 % of $3)" test "$_r" -ge $(($3 / 10 * 9))
}

# ---- 1: 4 KiB random writes, 3 x a 32 MiB device, verified ------------
# 32 MiB, 64 pages per block: 8192 logical pages, 9 spare blocks (7 %).
a=$(mkdev a size=32 blocksize=4096 pages_per_block=64)
ok "device a is $a" test -b "/dev/$a"
echo 1 > /sys/block/"$a"/ftl/reset_stats
ok "fio: 96 MiB of random 4 KiB writes over 32 MiB, then verified (crc32c)" \
	fio --eta=never --name=rand4k --filename=/dev/"$a" --rw=randwrite --bs=4k --direct=1 \
	--size=32M --io_size=96M --norandommap --verify=crc32c --verify_fatal=1 \
	--do_verify=1 --randrepeat=0 --output-format=json --output=/tmp/fio-a.json
is "$(jsonsum /tmp/fio-a.json write io_bytes)" $((96 << 20)) "fio wrote 96 MiB"
verified "$a" /tmp/fio-a.json $((32 << 20))
gc_ran "$a" 24576

# The checker checks: a page changed behind fio's back is reported.
ok "fio: 8 MiB sequential with crc32c headers, no verify" \
	fio --eta=never --name=ctl --filename=/dev/"$a" --rw=write --bs=4k --direct=1 \
	--size=8M --verify=crc32c --do_verify=0 --output=/tmp/fio-ctl.log
ok "fio --verify_only passes on the untouched data" \
	fio --eta=never --name=ctl --filename=/dev/"$a" --rw=write --bs=4k --direct=1 \
	--size=8M --verify=crc32c --verify_only --verify_fatal=1 \
	--output=/tmp/fio-ctl.log
dd if=/dev/urandom of=/dev/"$a" bs=4k count=1 seek=1000 oflag=direct 2>/dev/null
fio --eta=never --name=ctl --filename=/dev/"$a" --rw=write --bs=4k --direct=1 \
	--size=8M --verify=crc32c --verify_only --verify_fatal=1 \
	--output=/tmp/fio-ctl.log 2>/tmp/fio-ctl.err
s=$?
ok "fio --verify_only fails (exit $s) after one page was overwritten" test $s != 0
ok "and names the bad block at offset 4096000" grep -q "^verify: .* offset 4096000" /tmp/fio-ctl.err

# ---- 2: 512 B..64 KiB from two jobs on two queues, 512-byte sectors ----
# The jobs' ranges meet inside flash page 2047, which both read-modify-write.
b=$(mkdev b size=16 blocksize=512 pages_per_block=64 submit_queues=2)
ok "device b is $b with 2 hardware queues" test -d /sys/block/"$b"/mq/1
echo 1 > /sys/block/"$b"/ftl/reset_stats
half=$(((8 << 20) - 512))
ok "fio: 2 jobs, bssplit 512/4k/16k/64k, 3 x 8 MiB each, verified" \
	fio --eta=never --name=mixed --filename=/dev/"$b" --rw=randwrite --direct=1 \
	--bssplit=512/20:4k/40:16k/20:64k/20 --numjobs=2 --size=$half \
	--offset_increment=$half --io_size=$((3 * half)) --norandommap \
	--verify=crc32c --verify_fatal=1 --do_verify=1 --randrepeat=0 \
	--cpus_allowed=0-1 --cpus_allowed_policy=split \
	--output-format=json --output=/tmp/fio-b.json
# One job pinned to each CPU, and blk-mq maps CPU n to queue n: both
# queues must have dispatched requests. Until 6.9 debugfs counts the runs
# of each hardware queue (a run dispatches what was queued to it; 6.1 has
# no per-queue request counter), one or more per request here. 6.9 removed
# that counter ("blk-mq: Remove the hctx 'run' debugfs attribute"): there
# the map itself is checked, each CPU (one pinned job each) on its queue.
Q=/sys/kernel/debug/block/$b
if kernel_at_least 6.9; then
	# Which queue gets which CPU is blk-mq's choice (7.2 maps CPU 1 to
	# queue 0); each pinned job needs a queue of its own.
	m0=$(sysfs_read "/sys/block/$b/mq/0/cpu_list") m1=$(sysfs_read "/sys/block/$b/mq/1/cpu_list")
	ok "$b: hardware queues 0 and 1 serve one CPU each ($m0, $m1)" \
		test -n "$m0" -a -n "$m1" -a "$m0" != "$m1" -a -z "${m0##[0-9]}" -a -z "${m1##[0-9]}"
	is "$(printf '%s\n' "$m0" "$m1" | sort | tr '\n' ' ')" "0 1 " \
		"$b: together they serve CPU 0 and CPU 1 (one pinned fio job each)"
else
	q0=$(sysfs_read "$Q/hctx0/run") q1=$(sysfs_read "$Q/hctx1/run")
	diag "$b: hardware queue runs: hctx0=$q0 hctx1=$q1"
	ok "$b: hardware queue 0 dispatched ($q0 runs >= 500)" test "${q0:-0}" -ge 500
	ok "$b: hardware queue 1 dispatched ($q1 runs >= 500)" test "${q1:-0}" -ge 500
fi
w=$(jsonsum /tmp/fio-b.json write io_bytes)
ok "fio wrote >= 3 x the capacity ($w bytes)" test "$w" -ge $((3 * half * 2))
r=$(jsonsum /tmp/fio-b.json read io_bytes)
# Blocks partly overwritten by a later write are not checked (about 1/3
# of the device stays intact); their intact neighbours inside the same
# flash pages are, after many read-modify-writes and GC moves.
ok "fio verified $r bytes (>= 25 % of the capacity)" test "$r" -ge $((half / 2))
gc_ran "$b"
sz=$(st "$b" sectors_zeroed)
# Sub-page writes are read-modify-writes: more pages programmed than
# written bytes / 4 KiB.
ok "$b: sub-page writes programmed $(st "$b" host_pages_written) pages > $((w / 4096))" \
	test "$(st "$b" host_pages_written)" -gt $((w / 4096))
is "$sz" 0 "$b: no discards, no sectors zeroed"

# ---- 3: 16 KiB flash pages, cost-benefit GC -----------------------------
# 32 MiB / 16 KiB = 2048 pages, 32 per block: 64 blocks + 5 spare.
c=$(mkdev c size=32 blocksize=4096 page_size=16384 pages_per_block=32 gc_policy=cost-benefit)
ok "device c is $c" test -b "/dev/$c"
is "$(st "$c" gc_policy) $(sysfs_read /sys/block/"$c"/queue/physical_block_size) $(st "$c" spare_blocks)" \
	"cost-benefit 16384 5" "$c: cost-benefit, 16 KiB pages, 5 spare blocks"
echo 1 > /sys/block/"$c"/ftl/reset_stats
ok "fio: 96 MiB of random 4 KiB writes into 16 KiB pages, then verified" \
	fio --eta=never --name=big --filename=/dev/"$c" --rw=randwrite --bs=4k --direct=1 \
	--size=32M --io_size=96M --norandommap --verify=crc32c --verify_fatal=1 \
	--do_verify=1 --randrepeat=0 --output-format=json --output=/tmp/fio-c.json
verified "$c" /tmp/fio-c.json $((32 << 20))
# Every 4 KiB write programs one whole 16 KiB page (read-modify-write).
gc_ran "$c" 24576

# ---- 4: 1 MiB writes from two jobs on one shard --------------------------
# A 1 MiB write is 16 batches of 16 pages, each in its own hold of the
# shard's lock, which the other job's batches take in between: a batch
# stored into the wrong pages or out of turn shows as a bad block here.
# Each job its own half, random 1 MiB blocks.
d=$(mkdev d size=32 blocksize=4096 pages_per_block=64 submit_queues=2)
ok "device d is $d, one shard, 2 hardware queues" \
	test "$(st "$d" shards)" = 1 -a -d /sys/block/"$d"/mq/1
echo 1 > /sys/block/"$d"/ftl/reset_stats
ok "fio: 2 jobs of random 1 MiB writes, 3 x 16 MiB each, verified" \
	fio --eta=never --name=w1m --filename=/dev/"$d" --rw=randwrite --bs=1m --direct=1 \
	--iodepth=4 --ioengine=libaio --numjobs=2 --size=16M --offset_increment=16M \
	--io_size=48M --norandommap --verify=crc32c --verify_fatal=1 --do_verify=1 \
	--randrepeat=0 --cpus_allowed=0-1 --cpus_allowed_policy=split \
	--output-format=json --output=/tmp/fio-d.json
verified "$d" /tmp/fio-d.json $((32 << 20))
# Whole 1 MiB overwrites leave whole blocks stale: GC erases, moves little.
ok "$d: GC ran ($(st "$d" erases) erases > 0)" test "$(st "$d" erases)" -gt 0
is "$(st "$d" host_pages_written)" 24576 "$d: host_pages_written = 2 x 48 MiB / 4 KiB"

# Device a's first 1000 control pages were not disturbed by b's and c's GC.
ok "fio --verify_only over $a's first 4000 KiB still passes" \
	fio --eta=never --name=ctl --filename=/dev/"$a" --rw=write --bs=4k --direct=1 \
	--size=4000k --verify=crc32c --verify_only --verify_fatal=1 \
	--output=/tmp/fio-ctl.log

for n in a b c d; do rmdir "$CFS/$n"; done
ok "modprobe -r ftlblk" modprobe -r ftlblk
rm -f /tmp/fio-*.json /tmp/fio-ctl.log /tmp/fio-ctl.err
check_dmesg
done_testing
