#!/bin/sh
# Requests in flight across a power cut (ftl/power_cut), and the bounds of
# modeled time (timing=1).
#
# Nothing acknowledged is lost: a request in flight when a cut dropped the
# write cache must not complete successfully, even if the power is back by
# then - above all the flush of an fsync. And no request waits for flash
# work that a cut abandoned, that a hot removal made moot, or longer than
# the queue's io_timeout.
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
need_cmd uring-late taskset blkdiscard blkop
plan 24

THRESH=/sys/module/workqueue/parameters/cpu_intensive_thresh_us
thresh0=
cleanup() {
	[ -z "$thresh0" ] || echo "$thresh0" > "$THRESH"
	for n in pw pz pt pp pr po; do
		[ -d "$CFS/$n" ] && rmdir "$CFS/$n"
	done
	rm -f /tmp/ic-*
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

# ms: the time since boot in milliseconds.
ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
# waitfor SECONDS CMD...: poll CMD every 50 ms until it succeeds.
waitfor() {
	_t=$(($1 * 20))
	shift
	while ! "$@"; do
		_t=$((_t - 1))
		[ $_t -gt 0 ] || return 1
		sleep 0.05
	done
}
gt() { [ "$(st "$1" "$2")" -gt "$3" ]; }
# inflight_writes DEV: write requests the driver holds (sysfs inflight).
inflight_writes() { awk '{ print $2 }' "/sys/block/$1/inflight"; }
cut() { echo 1 > "/sys/block/$1/ftl/power_cut"; }
restore() { echo 0 > "/sys/block/$1/ftl/power_cut"; }

# busybox's taskset runs its own applets by name, and its blkdiscard has
# no -z: util-linux's by its path.
BLKDISCARD=$(command -v blkdiscard)
ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
# This shell and what it starts run on CPU 1 unless placed on CPU 0.
taskset -p 2 $$ >/dev/null

# ---- an fsync's flush queued before a cut and restore ----------------------
# ftlblk_wq is per CPU, and a worker pool runs its items one after another
# while the running one does not sleep: a flush queued on CPU 0 behind a
# long write-zeroes there (BLKZEROOUT: pages of zeroes programmed) waits
# until that ends. Since 6.5 an item running longer than
# cpu_intensive_thresh_us (10 ms) stops holding the others up (commit
# 616db8779b1e, "workqueue: Automatically mark CPU-hogging work items
# CPU_INTENSIVE"), so it is raised there for this part.
W=$(mkdev pw size=16 pages_per_block=64 write_cache=1)
Z=$(mkdev pz size=768 pages_per_block=256 op_percent=3)
if kernel_at_least 6.5; then
	thresh0=$(cat "$THRESH")
	echo 4000000000 > "$THRESH"
fi
dd if=/dev/urandom of=/tmp/ic-A bs=1M count=1 2>/dev/null
dd if=/tmp/ic-A of="/dev/$W" bs=1M oflag=direct 2>/dev/null
is "$(st "$W" cached_pages)" 256 "1 MiB written to $W waits in its write cache"
taskset 1 "$BLKDISCARD" -z "/dev/$Z" &
zpid=$!
ok "a write-zeroes of all of $Z runs on CPU 0's ftlblk worker" \
	waitfor 20 gt "$Z" write_zeroes_requests 0
f0=$(st "$W" flush_requests)
taskset 1 dd if=/dev/null of="/dev/$W" conv=fsync,notrunc 2>/tmp/ic-dd &
fpid=$!
ok "fsync of $W: its flush reached the driver" \
	waitfor 20 gt "$W" flush_requests "$f0"
# A discard of $W with a partial first page (so it runs on the worker,
# not in queue_rq) waits there too; it will run after the restore, but it
# was in flight at the cut: a disk loses what it had queued. (Not a
# write-zeroes: 6.1's blkdev_issue_zeroout() would retry a failed one
# with writes of zeroes.)
w0=$(inflight_writes "$W")
taskset 1 "$BLKDISCARD" -o 512 -l 65536 "/dev/$W" 2>/tmp/ic-wz &
wzpid=$!
ok "and a discard of $W reached it (queue/inflight)" \
	waitfor 20 sh -c "[ \$(awk '{ print \$2 }' /sys/block/$W/inflight) -gt $w0 ]"
cut "$W"
restore "$W"
zalive=$(kill -0 $zpid 2>/dev/null && echo running)
is "$zalive $(st "$W" pages_lost_at_power_cut)" "running 256" \
	"cut and restore while the flush waits behind the write-zeroes of $Z: 256 cached pages lost"
wait $fpid
frc=$?
wait $wzpid
wzrc=$?
wait $zpid
is "$frc $(grep -c 'Input/output error' /tmp/ic-dd)" "1 1" \
	"the flush ran after the restore and failed: fsync reports EIO, not lost data as safe"
is "$wzrc" 1 "the discard queued before the cut failed too: $(cat /tmp/ic-wz)"
diag "dd: $(cat /tmp/ic-dd)"
[ -z "$thresh0" ] || echo "$thresh0" > "$THRESH"
thresh0=
# That flush never vouched for writes completed after it was sent (one
# may have, and the cut dropped it): the first flush sent after the cut
# still owes the report.
is "$(blkop fsync "/dev/$W") $(st "$W" flushes_failed_after_cut)" "EIO 1" \
	"the flush in flight does not count as the report: the first fsync after the restore fails (EIO)"
dd if=/tmp/ic-A of="/dev/$W" bs=1M oflag=direct 2>/dev/null
ok "written again, an fsync succeeds" dd if=/dev/null of="/dev/$W" conv=fsync,notrunc
rmdir "$CFS/pw" "$CFS/pz"

# ---- a timed write whose cached data a cut dropped -------------------------
# One die, tPROG 200 ms, tR 200 ms, a 1 MiB cache (256 pages): 256 pages
# fill it; 16 more each write the oldest back first, so that request ends
# 16 programs (3.2 s) later, its own 16 pages cached. A cut 0.5 s in drops
# them: the request fails at once, and the flash work the cut abandoned
# holds up nothing after the restore.
R=$(mkdev pr size=16 pages_per_block=64 write_cache=1 cache_mib=1 timing=1 \
	channels=1 dies_per_channel=1 program_us=200000 read_us=200000)
dd if=/tmp/ic-A of="/dev/$R" bs=1M oflag=direct 2>/dev/null
dd if=/dev/urandom of="/dev/$R" bs=64k seek=16 count=1 oflag=direct 2>/tmp/ic-dd &
wpid=$!
sleep 0.5
t0=$(ms)
cut "$R"
wait $wpid
wrc=$?
t1=$(ms)
restore "$R"
is "$wrc $(grep -c 'Input/output error' /tmp/ic-dd)" "1 1" \
	"the write waiting for its write-backs fails with EIO"
ok "it failed at the cut, not at its modeled end ($((t1 - t0)) ms < 1000)" \
	test $((t1 - t0)) -lt 1000
t0=$(ms)
dd if="/dev/$R" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null
t1=$(ms)
ok "after the restore a read takes about tR, not the abandoned work ($((t1 - t0)) ms < 1500)" \
	test $((t1 - t0)) -lt 1500
rmdir "$CFS/pr"

# ---- a polled timed write across a cut --------------------------------------
# On a poll queue a timed request waits on the queue's poll list, not on a
# timer: the cut must take it off that list and fail it at once, not leave
# it for the poller at its modeled end (one die, tPROG 1 s: 16 s).
Q=$(mkdev pq size=16 pages_per_block=64 timing=1 channels=1 dies_per_channel=1 \
	program_us=1000000 poll_queues=1)
fio --eta=never --name=p --filename="/dev/$Q" --rw=write --bs=64k --size=64k \
	--direct=1 --ioengine=io_uring --hipri --output=/dev/null 2>/dev/null &
qpid=$!
ok "a polled 64 KiB write is in flight on $Q" \
	waitfor 10 sh -c "awk '{ exit !(\$2 > 0) }' /sys/block/$Q/inflight"
t0=$(ms)
cut "$Q"
wait $qpid
qrc=$?
t1=$(ms)
restore "$Q"
ok "it fails (fio exit status $qrc)" test "$qrc" -ne 0
ok "at the cut, not at its modeled end ($((t1 - t0)) ms < 5000)" \
	test $((t1 - t0)) -lt 5000
rmdir "$CFS/pq"

# ---- io_timeout ----------------------------------------------------------
# One die, tPROG 1 s: a 64 KiB write takes 16 s of modeled time; with the
# queue's io_timeout at 2 s, blk-mq's timeout ends it with ETIMEDOUT.
O=$(mkdev po size=16 pages_per_block=64 timing=1 channels=1 dies_per_channel=1 program_us=1000000)
echo 2000 > "/sys/block/$O/queue/io_timeout"
t0=$(ms)
dd if=/dev/urandom of="/dev/$O" bs=64k count=1 oflag=direct 2>/tmp/ic-dd
orc=$?
t1=$(ms)
is "$orc $(grep -c 'timed out' /tmp/ic-dd) $(st "$O" timeouts)" "1 1 1" \
	"a write the model would end after 16 s fails with ETIMEDOUT; ftl/timeouts 1"
ok "after io_timeout, not the model's 16 s ($((t1 - t0)) ms < 8000)" test $((t1 - t0)) -lt 8000
rmdir "$CFS/po"

# ---- io_timeout of a polled request ----------------------------------------
# On a poll queue a request ends only when its submitter polls. One die,
# tPROG 200 ms: a 4 KiB write is due after about 200 ms, a 64 KiB one after
# 3.2 s; the submitter (uring-late, an IOPOLL ring) reaps each 3.5 s after
# submitting it, and io_timeout (1 s) expires before. The due one completes
# with its own status; the other one was still waiting: ETIMEDOUT.
P=$(mkdev pp size=16 pages_per_block=64 timing=1 channels=1 dies_per_channel=1 \
	program_us=200000 poll_queues=1)
echo 1000 > "/sys/block/$P/queue/io_timeout"
is "$(uring-late -p -w 3500 write "/dev/$P" 0 4096 2>/tmp/ic-ul) $(st "$P" timeouts)" "ok 4096 0" \
	"a polled write due after 200 ms, reaped after 3.5 s: io_timeout (1 s) completes it with its own status"
diag "$(cat /tmp/ic-ul)"
is "$(uring-late -p -w 3500 write "/dev/$P" 65536 65536 2>/tmp/ic-ul) $(st "$P" timeouts)" "ETIMEDOUT 1" \
	"a polled write due after 3.2 s: io_timeout (1 s) ends it with ETIMEDOUT"
diag "$(cat /tmp/ic-ul)"
rmdir "$CFS/pp"

# ---- hot removal with a timed request in flight ----------------------------
P=$(mkdev pt size=16 pages_per_block=64 timing=1 channels=1 dies_per_channel=1 program_us=1000000)
dd if=/dev/urandom of="/dev/$P" bs=64k count=1 oflag=direct 2>/dev/null &
ppid=$!
sleep 0.5
t0=$(ms)
rmdir "$CFS/pt"
t1=$(ms)
ok "rmdir while a 16 s write waits returns promptly ($((t1 - t0)) ms < 5000)" \
	test $((t1 - t0)) -lt 5000
ok "and the writer is done" waitfor 5 sh -c "! kill -0 $ppid 2>/dev/null"
wait $ppid

ok "modprobe -r ftlblk" modprobe -r ftlblk
# The failed requests log I/O errors; nothing else may appear.
check_dmesg "no kernel warning, oops or hung task" \
	'WARNING:|BUG:|Oops|general protection|Call Trace|blocked for more than|refcount_t:'
done_testing
