#!/bin/sh
# Seed conformance, ordering against reads and writes: the 2008 design made
# a discard a soft barrier; today the block layer does not order requests,
# the submitter waits for completion. discard-race (tests/vm/tools) runs
# O_DIRECT writes, BLKDISCARD and O_DIRECT reads of overlapping pages from
# several threads and checks every read and a final read of every page
# against the history: a page is one whole version (never torn, never
# another page's), and never older than a write or discard that completed
# before the read began; at the end each page holds the data of one of its
# last operations (a write, or zeroes after a discard).
#
# The race is real and proved at the device: the device is small, full and
# collects garbage first in first out, so garbage collection runs and
# copies valid pages (raced ones among them) during the race: gc_runs and
# gc_relocations, sampled by the tool just before its threads start and
# after they end, must grow. The
# block layer's block_rq_issue/block_rq_complete tracepoints, which bracket
# ftlblk's queue_rq, must show a write and a discard of the same sectors
# inside ftlblk at the same time. The data outside the raced pages, moved
# around by GC all along, must read back unchanged. Last, the test module
# ftlblk_read_delay (tests/kmod/read_delay.c) keeps each read inside its RCU
# read-side section longer, so that the lock-free read path's window is
# hit, not just hoped for.
# shellcheck source=lib.sh
. /tests/lib.sh
# shellcheck source=conform-lib.sh
. /tests/conform-lib.sh
need_module ftlblk ftlblk_read_delay
need_cmd discard-race

plan 30

# race_run DESC ARGS...: discard-race must report no violation; sets $RACE.
race_run() {
	_d=$1; shift
	RACE=$(discard-race "$@" 2>&1)
	_st=$?
	printf '%s\n' "$RACE" | sed 's/^/# /'
	is "$_st" 0 "$_d: no violation, no I/O error"
}
field() { printf '%s\n' "$RACE" | sed -n "s/^discard-race: .* $1=\([0-9,-]*\).*/\1/p"; }

# device_pairs MAJ,MIN: from the block_rq_issue/block_rq_complete events in
# the trace, the requests that were inside the driver at the same time:
# "W-D pairs with a common sector, W-D pairs at all, writes, discards".
device_pairs() {
	awk -v dev="$1" '
	{
		for (i = 1; i <= NF; i++)
			if ($i == "block_rq_issue:" || $i == "block_rq_complete:")
				break
		if (i > NF || $(i + 1) != dev)
			next
		rw = $(i + 2)
		k = rw ~ /D/ ? "D" : rw ~ /W/ ? "W" : "R"
		if (k == "R")
			next
		if ($i == "block_rq_issue:") {
			s = $(i + 5); e = s + $(i + 7)
			if (k == "W") nw++; else nd++
			for (j in fk) {
				if (fk[j] == k)
					continue
				any++
				if (s < fe[j] && fs[j] < e)
					same++
			}
			id++; fk[id] = k; fs[id] = s; fe[id] = e
		} else {
			s = $(i + 4); e = s + $(i + 6)
			for (j in fk)
				if (fk[j] == k && fs[j] == s && fe[j] == e) {
					delete fk[j]; delete fs[j]; delete fe[j]
					break
				}
		}
	}
	END { print same + 0, any + 0, nw + 0, nd + 0 }' "$TRACE/trace"
}

# md5 of the device outside the pages [RBASE, RBASE + RMAX) that are raced.
RBASE=1000 RMAX=32
outside_sum() {
	{
		dd if="/dev/$D" bs=4096 count=$RBASE iflag=direct 2>/dev/null
		dd if="/dev/$D" bs=4096 skip=$((RBASE + RMAX)) iflag=direct 2>/dev/null
	} | md5sum
}

# Leave the VM clean for tests 73-76 even if this one stops early: block
# events off, the trace clock back, no device, ftlblk unloaded.
clock=
cleanup() {
	echo 0 >"$TRACE/events/block/block_rq_issue/enable" 2>/dev/null
	echo 0 >"$TRACE/events/block/block_rq_complete/enable" 2>/dev/null
	[ -z "$clock" ] || echo "$clock" >"$TRACE/trace_clock"
	[ -d /sys/module/ftlblk_read_delay ] && rmmod ftlblk_read_delay
	[ -d /sys/module/ftlblk ] || return 0
	trace_stop 2>/dev/null
	cdev_remove race 2>/dev/null
	modprobe -r ftlblk
}
trap cleanup EXIT

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
# 8 MiB in blocks of 32 pages: 64 logical blocks and 6 spare ones, so after
# a fill GC runs every few dozen page writes. FIFO takes the oldest block
# as the victim however many valid pages it holds (greedy would only find
# blocks the race left without a valid page, and copy nothing).
cdev_ok "device race: 8 MiB, 32-page blocks, 10 % spare, fifo GC, 2 hardware queues" \
	race size=8 pages_per_block=32 op_percent=10 gc_policy=fifo submit_queues=2
D=$CDEV
MAJMIN=$(sed 's/:/,/' "/sys/block/$D/dev")
dd if=/dev/urandom of="/dev/$D" bs=1M count=8 oflag=direct 2>/dev/null
is "$(cstat "$D" valid_pages)" "$(cstat "$D" logical_pages)" "the device is full: every logical page holds data"
sum0=$(outside_sum)
FTL=/sys/block/$D/ftl

echo 1 >"/sys/block/$D/ftl/reset_stats"
race_run "sequential (1 thread)" -t 1 -n 600 -p 16 -m 4 -s 1 -o $RBASE "/dev/$D"
# ${v:-0}: an empty field (discard-race crashed or changed its output) must
# fail the check, and must not break the arithmetic that sums them.
v=$(field discards)
ok "sequential: discards were issued (${v:-none})" test "${v:-0}" -gt 0
v=$(field reads_checked)
ok "sequential: reads were checked (${v:-none})" test "${v:-0}" -gt 0
v=$(field discards) w=$(field discarded_pages)
ndisc=${v:-0} npg=${w:-0}

# Per-page locks: no two operations on a page overlap, so every read has
# exactly one allowed value (a strict check of the data, not of the race).
race_run "4 threads, per-page locks" -t 4 -n 800 -p $RMAX -m 4 -s 2 -l -o $RBASE "/dev/$D"
v=$(field discards) w=$(field discarded_pages)
ndisc=$((ndisc + ${v:-0})) npg=$((npg + ${w:-0}))
v=$(field reads_checked)
ok "locked: reads were checked (${v:-none})" test "${v:-0}" -gt 0

# The race: no user-space lock at all, 12 pages, up to 6 per operation.
clock=$(sed 's/.*\[\(.*\)\].*/\1/' "$TRACE/trace_clock")
trace_start	# record-cmd off before any event is enabled
echo global >"$TRACE/trace_clock"	# one clock for the events of both CPUs
echo 1 >"$TRACE/events/block/block_rq_issue/enable"
echo 1 >"$TRACE/events/block/block_rq_complete/enable"
for seed in 3 4; do
	: >"$TRACE/trace"
	race_run "4 threads, overlapping ranges, seed $seed" \
		-t 4 -n 800 -p 12 -m 6 -s $seed -o $RBASE -c $FTL/gc_runs -c $FTL/gc_relocations "/dev/$D"
	v=$(field discards) w=$(field discarded_pages)
ndisc=$((ndisc + ${v:-0})) npg=$((npg + ${w:-0}))
	diag "user space saw $(field overlaps) discard+write/discard pairs of one page overlap in time"
	device_pairs "$MAJMIN" >/tmp/pairs
	read -r same any nw nd </tmp/pairs
	diag "device: $nw write and $nd discard requests; a write and a discard inside ftlblk together: $any times, of the same sectors: $same"
	ok "seed $seed: a write and a discard of the same sectors were inside ftlblk at the same time ($same)" \
		test "$same" -gt 0
	gcd=$(field counter_during)
	gcr=${gcd#*,} gcd=${gcd%,*}
	ok "seed $seed: garbage collection ran during the race (gc_runs +${gcd:-?})" test "${gcd:-0}" -gt 0
	ok "seed $seed: and copied valid pages (gc_relocations +${gcr:-?})" test "${gcr:-0}" -gt 0
	v=$(field reads_checked)
	ok "seed $seed: reads were checked (${v:-none})" test "${v:-0}" -gt 0
done
echo 0 >"$TRACE/events/block/block_rq_issue/enable"
echo 0 >"$TRACE/events/block/block_rq_complete/enable"
echo "$clock" >"$TRACE/trace_clock"
clock=
trace_stop
# The find-to-copy window of lock-free reads, widened on purpose: while
# ftlblk_read_delay is loaded each flash page a read copies waits 200 us first,
# so a 16-page read stays inside its RCU read-side section for up to 3 ms
# while the other threads overwrite its pages and the pool hands released
# pages to new writes. A pool that reused a page before the grace period
# lets the reader copy another write's data (mutant limbo-reuses-early).
ok "modprobe ftlblk_read_delay delay_us=200" modprobe ftlblk_read_delay delay_us=200
for seed in 5 6; do
	race_run "reads delayed 200 us a page inside RCU, seed $seed" \
		-t 4 -n 600 -p $RMAX -m 16 -s $seed -o $RBASE "/dev/$D"
	v=$(field reads_checked)
	ok "widened, seed $seed: reads were checked (${v:-none})" test "${v:-0}" -gt 0
	v=$(field discards) w=$(field discarded_pages)
	ndisc=$((ndisc + ${v:-0})) npg=$((npg + ${w:-0}))
done
v=$(reads_delayed)
ok "the read copies were delayed ($v)" test "${v:-0}" -gt 1000
ok "rmmod ftlblk_read_delay" rmmod ftlblk_read_delay

diag "after the races: gc_runs $(cstat "$D" gc_runs), gc_relocations $(cstat "$D" gc_relocations), erases $(cstat "$D" erases)"

is "$(outside_sum)" "$sum0" "the pages outside the raced ones read back unchanged after GC moved them"
# Each BLKDISCARD is one range of whole pages at the device.
is "$(cstat "$D" discard_ranges) $(cstat "$D" discard_sectors)" "$ndisc $((npg * 8))" \
	"every BLKDISCARD reached the device as one range ($ndisc ranges, $npg pages)"

ok "remove device race" cdev_remove race
ok "rmmod ftlblk" modprobe -r ftlblk
check_dmesg
done_testing
exit $?
