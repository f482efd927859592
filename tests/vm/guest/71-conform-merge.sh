#!/bin/sh
# Seed conformance, "allow elevators to sort/merge discard requests": many
# small discard bios submitted inside one blk_start_plug()/blk_finish_plug()
# reach ftlblk as fewer requests. With max_discard_segments=64 discontiguous
# bios become one multi-range request (each bio a range); with 1, only
# contiguous bios merge, into one range. Tried with the I/O scheduler none
# and mq-deadline. Counted at the device (discard_requests, discard_ranges)
# and traced (ftlblk_discard). See docs/conformance.md.
# shellcheck source=lib.sh
. /tests/lib.sh
# shellcheck source=conform-lib.sh
. /tests/conform-lib.sh
need_module ftlblk ftlblk_conform

plan 46

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
cdev_ok "device m64: max_discard_segments=64" m64 size=64 max_discard_segments=64
M64=$CDEV
cdev_ok "device m1: max_discard_segments=1" m1 size=64 max_discard_segments=1
M1=$CDEV
is "$(sysfs_read /sys/block/$M64/queue/max_discard_segments) $(sysfs_read /sys/block/$M1/queue/max_discard_segments)" \
	"64 1" "queue limits show 64 and 1 discard segments"
diag "schedulers offered: $(cat /sys/block/$M64/queue/scheduler)"

# merge_case DEV SCHED NAME "EXPECTED requests ranges sectors" CONFORM-ARGS...
# Runs the bios with ftlblk_conform test=async and compares the device's
# counters; the traced ranges must be the bios themselves (multi-range) or
# their merged extents (one segment).
merge_case() {
	_d=$1 _s=$2 _n=$3 _exp=$4
	shift 4
	echo 1 >"/sys/block/$_d/ftl/reset_stats"
	trace_start
	CONFORM_QUIET=1
	conform dev="/dev/$_d" test=async "$@"
	_st=$?
	CONFORM_QUIET=
	[ $_st = 0 ] && pass "$_d $_s $_n: the bios completed, each end_io once, status 0" ||
		fail "$_d $_s $_n: the bios completed, each end_io once, status 0"
	_got="$(cstat "$_d" discard_requests) $(cstat "$_d" discard_ranges) $(cstat "$_d" discard_sectors)"
	is "$_got" "$_exp" "$_d $_s $_n: requests ranges sectors at the device"
	trace_ranges "$_d" | sort -n >/tmp/traced
	if [ "$_d" = "$M64" ]; then
		_want=$(awk -v n="$CNT" -v s="$SEC" -v len="$LEN" -v st="$STRIDE" \
			'BEGIN { for (i = 0; i < n; i++) print s + i * st, len }' | sort -n)
		is "$(cat /tmp/traced)" "$_want" "$_d $_s $_n: one traced range per bio, exactly the bios"
	else
		_want=$(awk -v n="$CNT" -v s="$SEC" -v len="$LEN" -v st="$STRIDE" \
			'BEGIN { for (i = 0; i < n; i++) print s + i * st, len }' | ranges_merge |
			awk '{ print $1, $2 - $1 }')
		is "$(cat /tmp/traced)" "$_want" "$_d $_s $_n: traced ranges are the merged extents of the bios"
	fi
}

for sched in none mq-deadline; do
	for d in $M64 $M1; do
		echo "$sched" >"/sys/block/$d/queue/scheduler"
	done
	is "$(sed 's/.*\[\(.*\)\].*/\1/' /sys/block/$M64/queue/scheduler)" "$sched" "scheduler $sched selected"

	# 32 discontiguous 4 KiB bios (a hole after each)
	SEC=8192 LEN=8 STRIDE=16 CNT=32
	merge_case "$M64" $sched discontiguous "1 32 256" sector=$SEC nr_sects=$LEN stride=$STRIDE count=$CNT
	merge_case "$M1" $sched discontiguous "32 32 256" sector=$SEC nr_sects=$LEN stride=$STRIDE count=$CNT
	# 32 contiguous bios, in ascending and in descending order
	SEC=16384 LEN=8 STRIDE=8 CNT=32
	merge_case "$M64" $sched contiguous "1 32 256" sector=$SEC nr_sects=$LEN stride=$STRIDE count=$CNT
	merge_case "$M1" $sched contiguous "1 1 256" sector=$SEC nr_sects=$LEN stride=$STRIDE count=$CNT
	merge_case "$M1" $sched descending "1 1 256" sector=$SEC nr_sects=$LEN stride=$STRIDE count=$CNT reverse=1
	# 100 discontiguous bios: the 64-segment limit splits them in 2 requests
	SEC=32768 LEN=8 STRIDE=16 CNT=100
	merge_case "$M64" $sched seg-limit "2 100 800" sector=$SEC nr_sects=$LEN stride=$STRIDE count=$CNT
done

# Without a plug each bio is dispatched on its own (ftlblk runs requests in
# the submitter's context, so nothing waits in a queue to merge with).
for sched in none mq-deadline; do
	echo "$sched" >"/sys/block/$M1/queue/scheduler"
	echo 1 >"/sys/block/$M1/ftl/reset_stats"
	CONFORM_QUIET=1
	conform dev="/dev/$M1" test=async sector=16384 nr_sects=8 count=32 plug=0 ||
		fail "unplugged bios on $sched completed"
	CONFORM_QUIET=
	diag "unplugged, $sched, max_discard_segments=1: 32 contiguous bios -> $(cstat "$M1" discard_requests) requests"
done

trace_stop
ok "remove device m64" cdev_remove m64
ok "remove device m1" cdev_remove m1
ok "rmmod ftlblk" modprobe -r ftlblk
check_dmesg
done_testing
