#!/bin/sh
# The ftlblk tracepoints work through perf, not only through tracefs:
# perf lists them, records a discard with its exact range, and counts GC
# and erase events while random writes force garbage collection.
. /tests/lib.sh
need_cmd perf fio
plan 8

ok "modprobe ftlblk size=64" modprobe ftlblk size=64
events=$(perf list 'ftlblk:*' 2>/dev/null | awk '/ftlblk:/ { print $1 }' | sort | tr '\n' ' ')
is "$events" "ftlblk:ftlblk_bad_block ftlblk:ftlblk_complete ftlblk:ftlblk_discard ftlblk:ftlblk_erase ftlblk:ftlblk_gc ftlblk:ftlblk_request " \
	"perf list shows the six ftlblk tracepoints"

dd if=/dev/urandom of=/dev/ftlblk0 bs=1M count=8 oflag=direct 2>/dev/null
ok "perf record -e ftlblk:ftlblk_discard during blkdiscard" \
	perf record -q -e ftlblk:ftlblk_discard -a -o /tmp/perf.data -- \
	blkdiscard -f -o 1048576 -l 2097152 /dev/ftlblk0
rec=$(perf script -i /tmp/perf.data 2>/dev/null | grep -o 'ftlblk0 sector=[0-9]* nr_sectors=[0-9]*')
is "$rec" "ftlblk0 sector=2048 nr_sectors=4096" "perf script shows the discarded range"

counts=$(perf stat -x, -e ftlblk:ftlblk_gc -e ftlblk:ftlblk_erase -a -- \
	fio --eta=never --name=gc --filename=/dev/ftlblk0 --rw=randwrite \
	--bs=4k --direct=1 --size=64M --io_size=160M --output=/dev/null 2>&1 >/dev/null |
	awk -F, '/ftlblk:/ { printf "%s=%s ", $3, $1 }')
diag "perf stat: $counts"
gc=$(printf '%s\n' "$counts" | sed -n 's/.*ftlblk:ftlblk_gc=\([0-9]*\).*/\1/p')
erase=$(printf '%s\n' "$counts" | sed -n 's/.*ftlblk:ftlblk_erase=\([0-9]*\).*/\1/p')
ok "perf stat counted GC victims ($gc)" test "${gc:-0}" -gt 0
is "$erase" "$gc" "every GC victim was erased once (no wear leveling at this size)"
ok "modprobe -r ftlblk" modprobe -r ftlblk
check_dmesg
