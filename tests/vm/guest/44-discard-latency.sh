#!/bin/sh
# A long discard does not stall other I/O: a whole-device discard of a full
# 512 MiB device unmaps 131072 pages in batches of 256 per hold of its
# shard's lock (FTLBLK_UNMAP_BATCH), so 4 KiB O_DIRECT reads issued
# meanwhile wait at most about one batch. The slowest read during the
# discard must take at most a quarter of the discard's duration; if the
# discard held the lock in one go, some read would wait for nearly all of
# it. Timings under TCG are noisy (a busy host stalls a vCPU for 100 ms
# and more now and then), so this runs 5 times and the median round counts;
# only rounds whose discard took >= 100 ms mean anything, and most must
# (on 7.2 two of five took 90 ms).
#
# With the scheduler "none" (ftlblk's default) requests are issued directly
# from each submitter, so a read runs queue_rq beside the discard. A
# whole-device discard runs on ftlblk's workqueue, not in queue_rq, so with
# mq-deadline too a read queued after it is dispatched at once instead of
# waiting behind it (a BLK_MQ_F_BLOCKING queue dispatched from one kblockd
# work item would make it wait 70-150 ms); 3 rounds with mq-deadline are
# checked the same way.
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
need_cmd blkdiscard readlat taskset
plan 15

cleanup() {
	for _p in $BG; do kill "$_p" 2>/dev/null; done
	wait 2>/dev/null
	[ -d "$CFS/lat" ] && rmdir "$CFS/lat"
	rm -f /tmp/lat-*
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
BG=
trap cleanup EXIT
# Milliseconds since boot (10 ms resolution).
ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }

# round: fill the device, then read it at random during a whole-device
# discard, with one reader pinned to each CPU; sets td (ms), and max (us)
# and n (reads) of the better reader, and appends failures to bad.
# The discard runs in a kworker on some CPU; a reader on that CPU shares
# it with the worker. The reader on the other CPU only waits for the
# device lock, which is what the batching is about; the better reader
# counts.
round() {
	dd if=/dev/zero of=/dev/"$L" bs=1M count=512 oflag=direct 2>/dev/null || bad="$bad fill"
	[ "$(st "$L" valid_pages)" = 131072 ] || bad="$bad filled=$(st "$L" valid_pages)"
	rm -f /tmp/lat-stop
	taskset 1 readlat /dev/"$L" /tmp/lat-stop > /tmp/lat-disc0 2>&1 &
	r0=$!
	taskset 2 readlat /dev/"$L" /tmp/lat-stop > /tmp/lat-disc1 2>&1 &
	r1=$!
	BG="$r0 $r1"
	sleep 0.5
	t0=$(ms)
	blkdiscard -f /dev/"$L" 2>/dev/null || bad="$bad blkdiscard"
	t1=$(ms)
	touch /tmp/lat-stop
	wait $r0 || bad="$bad readlat0"
	wait $r1 || bad="$bad readlat1"
	BG=
	[ "$(st "$L" valid_pages)" = 0 ] || bad="$bad left=$(st "$L" valid_pages)"
	td=$((t1 - t0))
	m0=$(sed -n 's/.*max_us=\([0-9]*\).*/\1/p' /tmp/lat-disc0)
	m1=$(sed -n 's/.*max_us=\([0-9]*\).*/\1/p' /tmp/lat-disc1)
	n0=$(sed -n 's/reads=\([0-9]*\).*/\1/p' /tmp/lat-disc0)
	n1=$(sed -n 's/reads=\([0-9]*\).*/\1/p' /tmp/lat-disc1)
	max=${m0:-999999999} n=${n0:-0}
	if [ "${m1:-999999999}" -lt "$max" ]; then max=$m1 n=${n1:-0}; fi
	diag "  CPU 0 reader: ${n0:-?} reads, slowest ${m0:-?} us; CPU 1 reader: ${n1:-?} reads, slowest ${m1:-?} us"
}

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
L=$(mkdev lat size=512 blocksize=4096)
ok "device $L (512 MiB, 131072 pages)" test -b "/dev/$L"
ok "scheduler none" sh -c "echo none > /sys/block/$L/queue/scheduler"
is "$(sed 's/.*\[\(.*\)\].*/\1/' /sys/block/"$L"/queue/scheduler)" none "scheduler none selected"

# Baseline: 2 s of reads alone.
rm -f /tmp/lat-stop
readlat /dev/"$L" /tmp/lat-stop > /tmp/lat-base 2>&1 &
BG=$!
sleep 2
touch /tmp/lat-stop
wait $BG
BG=
diag "reads alone: $(cat /tmp/lat-base)"

# rounds SCHED N: N rounds, then the checks on the median of the rounds
# whose discard took >= 100 ms (a vCPU stall can spoil a round either way;
# a shorter discard says nothing about a batch), of which there must be
# a majority.
rounds() {
	bad='' ratios='' short=0 noreads=''
	for i in $(seq "$2"); do
		round
		diag "$1 round $i: $td ms discard; better reader: slowest of $n reads $max us"
		[ "${n:-0}" -gt 0 ] || noreads="$noreads $i"
		if [ "$td" -lt 100 ]; then
			short=$((short + 1))
			continue
		fi
		# ratio of the slowest read to the discard, in thousandths
		ratios="$ratios $((${max:-999999999} / td))"
	done
	long=$(($2 - short))
	# shellcheck disable=SC2086 # split on purpose
	med=$(printf '%s\n' $ratios | sort -n | sed -n "$((long / 2 + 1))p")
	is "$bad" "" "$1: $2 rounds: fill 512 MiB, discard it all while reading (every step succeeded, all pages unmapped)"
	is "$noreads" "" "$1: reads went on during every discard"
	ok "$1: most discards took >= 100 ms ($long of $2)" test "$long" -gt $(($2 / 2))
	ok "$1: median of those: slowest read <= 1/4 of the discard (${med:-none}/1000; rounds:$ratios)" \
		test "${med:-999999}" -le 250
}
rounds none 5
ok "scheduler mq-deadline" sh -c "echo mq-deadline > /sys/block/$L/queue/scheduler"
rounds mq-deadline 5

rmdir "$CFS/lat"
rm -f /tmp/lat-*
ok "modprobe -r ftlblk" modprobe -r ftlblk
check_dmesg
done_testing
