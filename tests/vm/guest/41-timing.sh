#!/bin/sh
# NAND timing (timing=1): requests complete when the modeled flash would.
# - The model's own numbers are exact: a queue-depth-1 4 KiB read of a
#   mapped page costs tR + one page transfer (50 us + 4096 B at 200 MB/s
#   = 70.48 us), an unmapped one nothing. fio's measured median latency is at
#   least that, and that plus the overhead of a timed request under TCG
#   (the hrtimer interrupt and the vCPU's wake-up, ~100 us here), which
#   is measured in the same boot on a device whose model says 40.48 us
#   (read_us=20), within 30 %.
# - Polled completions (poll_queues=1, io_uring --hipri): the submitter
#   spins in ftlblk_poll() instead of sleeping until an hrtimer interrupt,
#   so a QD1 read takes the model plus what the same read costs on brd
#   (bio-based, RAM speed) in the same boot: at most 15 % more (the goal
#   is 10 %; TCG's noise needs the margin), never less than the model, and
#   less than interrupt-driven.
# - gc_busy_ns stays 0 while a fresh device is filled and grows once
#   random overwrites make GC run; erase_busy_ns counts tBERS on every die.
# - Steady-state 4 KiB random-write IOPS from fio at queue depth 32 is
#   within 15 % of ftlsim --timing for the same geometry and workload.
# - ftlblk:ftlblk_complete reports each request's modeled latency.
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
need_cmd fio ftlsim perf
plan 33

cleanup() {
	for n in t r s p q; do [ -d "$CFS/$n" ] && rmdir "$CFS/$n"; done
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
	[ -d /sys/module/brd ] && modprobe -r brd
}
trap cleanup EXIT

# terse v3 fields: 8 read IOPS, 40 read total latency mean (us),
# 49 write IOPS, 81 write total latency mean (us)
fio_terse() {
	fio --eta=never --name=t --direct=1 --bs=4k --output-format=terse \
		--terse-version=3 "$@" 2>/dev/null | tail -n 1
}
field() { echo "$1" | cut -d';' -f"$2"; }
# qd1_read_us DEV: median completion latency (fio's clat p50, us) of
# queue-depth-1 4 KiB random reads for 1 s (thousands of them): the
# median, because a stall of the host moves a TCG guest's mean but not its
# median.
# Further arguments go to fio (e.g. another ioengine).
qd1_read_us() {
	_dev=$1
	shift
	fio_terse --filename=/dev/"$_dev" --rw=randread --ioengine=psync \
		--iodepth=1 --runtime=1 --time_based --size=4M "$@" |
		tr ';' '\n' | sed -n 's/^50\.000000%=//p' | head -n 1
}

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
T=$(mkdev t timing=1 size=16 pages_per_block=64)
ok "timing device is $T" test -b "/dev/$T"
R=$(mkdev r size=32 pages_per_block=64)
ok "RAM-speed device is $R" test -b "/dev/$R"
is "$(st "$T" timing) $(st "$T" channels) $(st "$T" dies_per_channel) $(st "$T" read_us) $(st "$T" program_us) $(st "$T" erase_us) $(st "$T" channel_mbps)" \
	"1 4 2 50 600 2000 200" "sysfs shows the timing geometry (defaults)"
is "$(st "$R" timing) $(st "$R" requests_timed)" "0 0" "timing=0 times nothing"

# ---- the exact model: a queue-depth-1 read of a mapped page ------------
S=$(mkdev s timing=1 size=32 pages_per_block=64 read_us=20)
ok "write the first 4 MiB of all three" sh -c \
	"for d in $T $R $S; do dd if=/dev/urandom of=/dev/\$d bs=1M count=4 oflag=direct 2>/dev/null || exit 1; done"
is "$(st "$T" gc_busy_ns) $(st "$T" erase_busy_ns)" "0 0" \
	"filling a fresh device runs no GC and no erase"
echo 1 > /sys/block/"$T"/ftl/reset_stats
ok "one 4 KiB read" dd if=/dev/"$T" of=/dev/null bs=4k count=1 skip=7 iflag=direct
is "$(st "$T" requests_timed) $(st "$T" latency_ns_total) $(st "$T" host_busy_ns)" \
	"1 70480 50000" "its modeled latency is tR + transfer = 70480 ns; die time tR"
echo 1 > /sys/block/"$T"/ftl/reset_stats
ok "one 4 KiB read of an unmapped page" \
	dd if=/dev/"$T" of=/dev/null bs=4k count=1 skip=2048 iflag=direct
is "$(st "$T" requests_timed) $(st "$T" latency_ns_total)" "1 0" \
	"an unmapped read costs no flash time"

# Interleaved, three times each: TCG's speed drifts during a boot.
# Medians of 5 (a mean of 3 let one slow TCG round pass 30 %: seen once
# on 6.12, 234.7 us against a bound of 231.4).
# shellcheck disable=SC2086 # the samples: words on purpose
median5() { printf '%s\n' $1 | sort -n | sed -n 3p; }
lat_t='' lat_s=''
for _ in 1 2 3 4 5; do
	lat_t="$lat_t $(qd1_read_us "$T")"
	lat_s="$lat_s $(qd1_read_us "$S")"
done
lat_t=$(median5 "$lat_t") lat_s=$(median5 "$lat_s")
lat_r=$(qd1_read_us "$R")
over=$(awk -v s="$lat_s" 'BEGIN { print s - 40.48 }')
diag "QD1 4 KiB random read, median: timing=1 $lat_t us (model 70.48), read_us=20 $lat_s us (model 40.48: overhead $over us), timing=0 $lat_r us"
ok "timing=1 is never faster than the model ($lat_t >= 70.48 us)" \
	awk -v t="$lat_t" 'BEGIN { exit !(t >= 70.48) }'
ok "it is the model plus the measured overhead within 30 % ($lat_t vs 70.48 + $over us)" \
	awk -v t="$lat_t" -v o="$over" 'BEGIN { m = 70.48 + o; exit !(o >= 0 && t >= 0.7 * m && t <= 1.3 * m) }'

# ---- polled completions -------------------------------------------------
P=$(mkdev p timing=1 size=16 pages_per_block=64 poll_queues=1)
ok "polled timing device is $P" test -b "/dev/$P"
is "$(cat /sys/block/"$P"/queue/io_poll) $(cat /sys/block/"$T"/queue/io_poll)" "1 0" \
	"poll_queues=1 makes the queue pollable, the default does not"
Q=$(mkdev q size=16 pages_per_block=64 poll_queues=1)
ok "timing=0 poll device $Q: io_uring --hipri random writes verify" \
	fio --eta=never --name=v --filename=/dev/"$Q" --rw=randwrite --bs=4k \
	--direct=1 --ioengine=io_uring --hipri --iodepth=4 --size=4M \
	--verify=crc32c --output=/dev/null
ok "write the first 4 MiB of $P" dd if=/dev/urandom of=/dev/"$P" bs=1M count=4 oflag=direct
modprobe brd rd_nr=1 rd_size=16384
dd if=/dev/urandom of=/dev/ram0 bs=1M count=4 oflag=direct 2>/dev/null
# io_uring's submission runs queue_rq (and brd's whole read): fio's
# completion latency starts after it, so compare total latencies.
URING="--ioengine=io_uring --lat_percentiles=1"
lat_p=0 lat_i=0 lat_b=0
# shellcheck disable=SC2086 # $URING: several arguments on purpose
for _ in 1 2 3; do
	lat_p=$(awk -v a="$lat_p" -v b="$(qd1_read_us "$P" $URING --hipri)" 'BEGIN { print a + b / 3 }')
	lat_i=$(awk -v a="$lat_i" -v b="$(qd1_read_us "$P" $URING)" 'BEGIN { print a + b / 3 }')
	lat_b=$(awk -v a="$lat_b" -v b="$(qd1_read_us ram0 $URING)" 'BEGIN { print a + b / 3 }')
done
diag "QD1 4 KiB read, io_uring, median total latency: polled $lat_p us, interrupt-driven $lat_i us, model 70.48 + brd $lat_b us = $(awk -v b="$lat_b" 'BEGIN { print 70.48 + b }') us"
ok "polled: never faster than the model ($lat_p >= 70.48 us)" \
	awk -v t="$lat_p" 'BEGIN { exit !(t >= 70.48) }'
# At most: the modeled time runs from queue_rq on, alongside the rest of
# the submission, so a kernel whose submission is slow (KASAN) completes
# sooner than model + brd; never sooner than the model (above).
ok "polled: at most 15 % above the model plus brd's latency ($lat_p vs 70.48 + $lat_b us)" \
	awk -v t="$lat_p" -v b="$lat_b" 'BEGIN { exit !(t <= 1.15 * (70.48 + b)) }'
ok "polled is faster than interrupt-driven ($lat_p < $lat_i us)" \
	awk -v p="$lat_p" -v i="$lat_i" 'BEGIN { exit !(p < i) }'
modprobe -r brd

# ---- tracepoint ---------------------------------------------------------
ok "perf record -e ftlblk:ftlblk_complete during one read" \
	perf record -q -e ftlblk:ftlblk_complete -a -o /tmp/perf.data -- \
	dd if=/dev/"$T" of=/dev/null bs=4k count=1 skip=9 iflag=direct
rec=$(perf script -i /tmp/perf.data 2>/dev/null | grep -o "$T op=read sector=72 nr_sectors=8 pages=1 latency_ns=[0-9]*")
is "$rec" "$T op=read sector=72 nr_sectors=8 pages=1 latency_ns=70480" \
	"ftlblk_complete shows the read and its modeled latency"

# ---- GC costs time ------------------------------------------------------
ok "fill the timing device" dd if=/dev/urandom of=/dev/"$T" bs=1M count=16 oflag=direct
is "$(st "$T" gc_busy_ns)" 0 "no GC while filling"
echo 1 > /sys/block/"$T"/ftl/reset_stats
ok "warm up: 2x capacity of 4 KiB random writes at QD 32" \
	fio --eta=never --name=w --filename=/dev/"$T" --rw=randwrite --bs=4k \
	--direct=1 --ioengine=libaio --iodepth=32 --norandommap \
	--randrepeat=0 --size=16M --io_size=32M --output=/dev/null
gc=$(st "$T" gc_busy_ns)
er=$(st "$T" erase_busy_ns)
erases=$(st "$T" erases)
ok "gc_busy_ns grew once GC ran ($gc ns, $(st "$T" gc_relocations) relocations)" \
	test "$gc" -gt 0
is "$gc" "$(($(st "$T" gc_relocations) * 650000))" \
	"gc_busy_ns = relocations x (tR + tPROG)"
is "$er" "$((erases * 8 * 2000000))" "erase_busy_ns = erases x 8 dies x tBERS"

sim=$(ftlsim --timing --size 16M --pages-per-block 64 --op-percent 7 \
	--policy greedy --fill --warmup 2 --writes 2 --queue-depth 32 --json |
	sed -n 's/.*"host_iops": \([0-9.]*\).*/\1/p')
randwrite_qd32() {
	res=$(fio_terse --filename=/dev/"$T" --rw=randwrite --ioengine=libaio \
		--iodepth=32 --norandommap --randrepeat=0 --size=16M --runtime=6 \
		--time_based)
	iops=$(field "$res" 49)
}
randwrite_qd32
# A host stall of the vCPUs leaves the modeled dies idle and can only
# lower the IOPS (by 15 % for about 0.8 s of the 6): a run below the
# bound is repeated once, and the better run counts.
if awk -v f="$iops" -v s="$sim" 'BEGIN { exit !(f < 0.85 * s) }'; then
	diag "fio $iops IOPS is below 0.85 x the model $sim: once more"
	first=$res
	randwrite_qd32
	awk -v f="$iops" -v g="$(field "$first" 49)" 'BEGIN { exit !(g > f) }' &&
		res=$first iops=$(field "$first" 49)
fi
waf=$(st "$T" waf)
diag "steady-state 4 KiB randwrite QD32: fio $iops IOPS, ftlsim $sim IOPS; device WAF so far $waf"
if grep -q ' kasan_report$' /proc/kallsyms; then
	# make check-debug: KASAN and lockdep make the guest's CPU, not the
	# modeled flash, the bottleneck; the device must still never beat it.
	ok "KASAN kernel: fio's IOPS is at most the model + 15 % ($iops vs $sim)" \
		awk -v f="$iops" -v s="$sim" 'BEGIN { exit !(s > 0 && f <= 1.15 * s) }'
else
	ok "fio's IOPS is within 15 % of the model ($iops vs $sim)" \
		awk -v f="$iops" -v s="$sim" 'BEGIN { exit !(s > 0 && f >= 0.85 * s && f <= 1.15 * s) }'
fi
ok "write latency mean $(field "$res" 81) us is above one tPROG" \
	awk -v l="$(field "$res" 81)" 'BEGIN { exit !(l > 600) }'

# ---- the RAM-speed device stayed untimed --------------------------------
is "$(st "$R" requests_timed) $(st "$R" gc_busy_ns)" "0 0" "timing=0 device: nothing timed"
ok "modprobe -r ftlblk" sh -c 'rmdir /sys/kernel/config/ftlblk/t /sys/kernel/config/ftlblk/r /sys/kernel/config/ftlblk/s /sys/kernel/config/ftlblk/p /sys/kernel/config/ftlblk/q && modprobe -r ftlblk'
check_dmesg
