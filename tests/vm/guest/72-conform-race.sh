#!/bin/sh
# Seed conformance, ordering against reads and writes: the 2008 design made
# a discard a soft barrier; today the block layer does not order requests,
# the submitter waits for completion. discard-race (tests/vm/tools) runs
# O_DIRECT writes, BLKDISCARD and O_DIRECT reads of overlapping pages from
# several threads and checks every read and the final contents against the
# history: a page is one whole version (never torn, never another page's),
# and never older than a write or discard that completed before the read
# began. Sequential, with per-page locks, and fully overlapping.
# shellcheck source=lib.sh
. /tests/lib.sh
# shellcheck source=conform-lib.sh
. /tests/conform-lib.sh
need_module ftlblk
need_cmd discard-race

plan 15

# race_run DESC ARGS...: discard-race must report no violation; sets $RACE.
race_run() {
	_d=$1; shift
	RACE=$(discard-race "$@" 2>&1)
	_st=$?
	printf '%s\n' "$RACE" | sed 's/^/# /'
	is "$_st" 0 "$_d: no violation, no I/O error"
}
field() { printf '%s\n' "$RACE" | sed -n "s/^discard-race: .* $1=\([0-9]*\).*/\1/p"; }

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
cdev_ok "device race: 64 MiB, 2 hardware queues" race size=64 submit_queues=2
D=$CDEV

echo 1 >"/sys/block/$D/ftl/reset_stats"
race_run "sequential (1 thread)" -t 1 -n 600 -p 16 -m 4 -s 1 "/dev/$D"
isnt "$(field discards)" 0 "sequential: discards were issued"
isnt "$(field reads_checked)" 0 "sequential: reads were checked"
ndisc=$(field discards) npg=$(field discarded_pages)

race_run "4 threads, per-page locks" -t 4 -n 800 -p 32 -m 4 -s 2 -l "/dev/$D"
ndisc=$((ndisc + $(field discards))) npg=$((npg + $(field discarded_pages)))
is "$(field overlaps)" 0 "locked: no two operations on a page overlapped"
isnt "$(field reads_checked)" 0 "locked: reads were checked"

race_run "4 threads, overlapping ranges" -t 4 -n 800 -p 12 -m 6 -s 3 "/dev/$D"
overl=$(field overlaps)
ndisc=$((ndisc + $(field discards))) npg=$((npg + $(field discarded_pages)))
diag "discard+write or discard+discard pairs of one page in flight together: $overl"
ok "overlapping: the device saw concurrent writes and discards of one page" test "${overl:-0}" -gt 0

race_run "4 threads, overlapping, 2nd seed" -t 4 -n 800 -p 12 -m 6 -s 4 "/dev/$D"
ndisc=$((ndisc + $(field discards))) npg=$((npg + $(field discarded_pages)))

# Each BLKDISCARD is one range of whole pages at the device.
is "$(cstat "$D" discard_ranges) $(cstat "$D" discard_sectors)" "$ndisc $((npg * 8))" \
	"every BLKDISCARD reached the device as one range ($ndisc ranges, $npg pages)"

ok "remove device race" cdev_remove race
ok "rmmod ftlblk" modprobe -r ftlblk
check_dmesg
done_testing
