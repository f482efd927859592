#!/bin/sh
# Seed conformance, "allow elevators to sort/merge discard requests": many
# small discard bios reach ftlblk as fewer requests. Inside one
# blk_start_plug()/blk_finish_plug() the plug merges them: with
# max_discard_segments=64 discontiguous bios become one multi-range request
# (each bio a range); with 1, only contiguous bios merge, into one range.
# When the plug cannot merge (a write follows each discard bio), mq-deadline
# merges the discard requests as they are inserted (elv_attempt_insert_merge)
# and none does not. Without a plug, with none, every bio is its own request.
# Every case is counted at the device (discard_requests, discard_ranges),
# traced (ftlblk_discard) and checked for its effect: the discarded sectors
# read back as zeroes, every other sector of the region (the holes between
# the bios, the interleaved writes) holds what it should, and valid_pages
# dropped by exactly the bios' pages (valid_pages_discarded the same), so
# a driver that merely counted discards fails. See docs/conformance.md.
# shellcheck source=lib.sh
. /tests/lib.sh
# shellcheck source=conform-lib.sh
. /tests/conform-lib.sh
need_module ftlblk ftlblk_conform

plan 101

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
cdev_ok "device m64: max_discard_segments=64" m64 size=64 max_discard_segments=64
M64=$CDEV
cdev_ok "device m1: max_discard_segments=1" m1 size=64 max_discard_segments=1
M1=$CDEV
is "$(sysfs_read /sys/block/$M64/queue/max_discard_segments) $(sysfs_read /sys/block/$M1/queue/max_discard_segments)" \
	"64 1" "queue limits show 64 and 1 discard segments"
diag "schedulers offered: $(cat /sys/block/$M64/queue/scheduler)"
# Writeback throttling (wbt) limits the requests in flight, discards and
# writes counted apart; with 16 plugged write requests it made the
# submitter sleep, and a sleep flushes the plug in batches (4 requests at
# mq-deadline instead of 1). Off (after each scheduler switch), so what is
# counted is the merging alone.
wbt_off() {
	[ ! -e "/sys/block/$1/queue/wbt_lat_usec" ] || echo 0 >"/sys/block/$1/queue/wbt_lat_usec"
}

head -c 4096 /dev/zero >/tmp/zpage
tr '\000' 'Z' </tmp/zpage >/tmp/wpage	# what ftlblk_conform writes (0x5a)

# The bios of a case: "start sectors" per bio, from SEC LEN STRIDE CNT.
bios() {
	awk -v n="$CNT" -v s="$SEC" -v len="$LEN" -v st="$STRIDE" \
		'BEGIN { for (i = 0; i < n; i++) print s + i * st, len }'
}

# prep DEV: random data over the case's region (and the write region at
# WSEC if set) so that every page there is mapped; /tmp/exp is what the
# region must read afterwards: the bios' sectors zero, the written pages
# 0x5a, everything else unchanged. Sets $RPAGES (region length in pages)
# and $VP0 (valid_pages before).
prep() {
	RPAGES=$(( (CNT * STRIDE + 7) / 8 ))
	[ -z "$WSEC" ] || RPAGES=$(( (WSEC - SEC) / 8 + CNT * 2 ))
	dd if=/dev/urandom of="/dev/$1" bs=4096 seek=$((SEC / 8)) count=$RPAGES \
		oflag=direct 2>/dev/null
	dd if="/dev/$1" of=/tmp/exp bs=4096 skip=$((SEC / 8)) count=$RPAGES \
		iflag=direct 2>/dev/null
	bios | ranges_merge | while read -r _s _e; do
		dd if=/dev/zero of=/tmp/exp bs=512 seek=$((_s - SEC)) count=$((_e - _s)) \
			conv=notrunc 2>/dev/null
	done
	if [ -n "$WSEC" ]; then
		_i=0
		while [ $_i -lt "$CNT" ]; do
			dd if=/tmp/wpage of=/tmp/exp bs=4096 seek=$(( (WSEC - SEC) / 8 + 2 * _i )) \
				conv=notrunc 2>/dev/null
			_i=$((_i + 1))
		done
	fi
	VP0=$(cstat "$1" valid_pages)
}

# effect DEV DESC: the region reads as /tmp/exp; valid_pages dropped by the
# bios' pages and valid_pages_discarded says the same.
effect() {
	dd if="/dev/$1" of=/tmp/got bs=4096 skip=$((SEC / 8)) count=$RPAGES \
		iflag=direct 2>/dev/null
	ok "$2: discarded sectors read zeroes, the rest of the region is intact" \
		cmp /tmp/exp /tmp/got
	_np=$((CNT * LEN / 8))
	is "$((VP0 - $(cstat "$1" valid_pages))) $(cstat "$1" valid_pages_discarded)" "$_np $_np" \
		"$2: valid_pages dropped by the $_np pages discarded, all of them counted valid"
}

# merge_case DEV SCHED NAME "EXPECTED requests ranges sectors" TRACED CONFORM-ARGS...
# Runs the bios with ftlblk_conform test=async and compares the device's
# counters. TRACED: "bios" = one traced range per bio, exactly the bios;
# "extents" = the traced ranges are the merged extents of the bios.
merge_case() {
	_d=$1 _s=$2 _n=$3 _exp=$4 _tr=$5
	shift 5
	prep "$_d"
	echo 1 >"/sys/block/$_d/ftl/reset_stats"
	trace_start
	CONFORM_QUIET=1
	conform dev="/dev/$_d" test=async "$@"
	_st=$?
	CONFORM_QUIET=
	if [ $_st = 0 ]; then
		pass "$_d $_s $_n: the bios completed, each end_io once, status 0"
	else
		fail "$_d $_s $_n: the bios completed, each end_io once, status 0"
	fi
	_got="$(cstat "$_d" discard_requests) $(cstat "$_d" discard_ranges) $(cstat "$_d" discard_sectors)"
	is "$_got" "$_exp" "$_d $_s $_n: requests ranges sectors at the device"
	trace_ranges "$_d" | sort -n >/tmp/traced
	if [ "$_tr" = bios ]; then
		is "$(cat /tmp/traced)" "$(bios | sort -n)" "$_d $_s $_n: one traced range per bio, exactly the bios"
	else
		is "$(cat /tmp/traced)" "$(bios | ranges_merge | awk '{ print $1, $2 - $1 }')" \
			"$_d $_s $_n: traced ranges are the merged extents of the bios"
	fi
	effect "$_d" "$_d $_s $_n"
}

WSEC=
for sched in none mq-deadline; do
	for d in $M64 $M1; do
		echo "$sched" >"/sys/block/$d/queue/scheduler"
		wbt_off "$d"
	done
	is "$(sed 's/.*\[\(.*\)\].*/\1/' /sys/block/$M64/queue/scheduler)" "$sched" "scheduler $sched selected"

	# 32 discontiguous 4 KiB bios (a hole after each), plugged
	SEC=8192 LEN=8 STRIDE=16 CNT=32
	merge_case "$M64" $sched discontiguous "1 32 256" bios sector=$SEC nr_sects=$LEN stride=$STRIDE count=$CNT
	merge_case "$M1" $sched discontiguous "32 32 256" extents sector=$SEC nr_sects=$LEN stride=$STRIDE count=$CNT
	# 32 contiguous bios, in ascending and in descending order
	SEC=16384 LEN=8 STRIDE=8 CNT=32
	merge_case "$M64" $sched contiguous "1 32 256" bios sector=$SEC nr_sects=$LEN stride=$STRIDE count=$CNT
	merge_case "$M1" $sched contiguous "1 1 256" extents sector=$SEC nr_sects=$LEN stride=$STRIDE count=$CNT
	merge_case "$M1" $sched descending "1 1 256" extents sector=$SEC nr_sects=$LEN stride=$STRIDE count=$CNT reverse=1
	# 100 discontiguous bios: the 64-segment limit splits them in 2 requests
	SEC=32768 LEN=8 STRIDE=16 CNT=100
	merge_case "$M64" $sched seg-limit "2 100 800" bios sector=$SEC nr_sects=$LEN stride=$STRIDE count=$CNT

	# 16 discontiguous bios, each followed in the plug by a 4 KiB write
	# elsewhere: the plug only tries its most recent request (a write), so
	# it merges nothing; mq-deadline then merges the 16 discard requests
	# as the plug inserts them (one-hit q->last_merge, a multi-range
	# discard merge), none issues them as they are. With one segment no
	# two discard requests may merge (ll_merge_requests_fn counts a
	# segment per request), so m1 gets 16 with either scheduler.
	SEC=49152 LEN=8 STRIDE=16 CNT=16 WSEC=53248
	if [ $sched = mq-deadline ]; then want="1 16 128"; else want="16 16 128"; fi
	merge_case "$M64" $sched insert-merge "$want" bios sector=$SEC nr_sects=$LEN stride=$STRIDE count=$CNT wsector=$WSEC
	merge_case "$M1" $sched insert-merge "16 16 128" extents sector=$SEC nr_sects=$LEN stride=$STRIDE count=$CNT wsector=$WSEC
	WSEC=
done

# Without a plug, with none, each bio is issued directly in the submitter's
# context: nothing waits anywhere to be merged with, 32 requests. With
# mq-deadline each request is inserted and dispatched by kblockd, so a bio
# may merge into a request still waiting there (timing): between 1 and 32
# requests, each one range.
SEC=16384 LEN=8 STRIDE=8 CNT=32
echo none >"/sys/block/$M1/queue/scheduler"
wbt_off "$M1"
merge_case "$M1" none unplugged "32 32 256" bios sector=$SEC nr_sects=$LEN count=$CNT plug=0
echo mq-deadline >"/sys/block/$M1/queue/scheduler"
wbt_off "$M1"
prep "$M1"
echo 1 >"/sys/block/$M1/ftl/reset_stats"
trace_start
CONFORM_QUIET=1
conform dev="/dev/$M1" test=async sector=$SEC nr_sects=$LEN count=$CNT plug=0
st=$?
CONFORM_QUIET=
is "$st" 0 "$M1 mq-deadline unplugged: the bios completed, each end_io once, status 0"
nreq=$(cstat "$M1" discard_requests)
diag "unplugged, mq-deadline, max_discard_segments=1: 32 contiguous bios -> $nreq requests"
is "$(cstat "$M1" discard_ranges) $(cstat "$M1" discard_sectors)" "$nreq 256" \
	"$M1 mq-deadline unplugged: one range per request, 256 sectors"
in_range() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
ok "$M1 mq-deadline unplugged: 1..32 requests ($nreq)" in_range "$nreq" 1 32
is "$(trace_ranges "$M1" | ranges_merge)" "$SEC $((SEC + 256))" \
	"$M1 mq-deadline unplugged: the traced ranges cover exactly the bios"
effect "$M1" "$M1 mq-deadline unplugged"

trace_stop
ok "remove device m64" cdev_remove m64
ok "remove device m1" cdev_remove m1
ok "rmmod ftlblk" modprobe -r ftlblk
check_dmesg
done_testing
