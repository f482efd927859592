#!/bin/sh
# configfs under concurrency: power 1 and power 0 written concurrently to one
# device (with openers racing the removals) leave it consistent and usable;
# mkdir/rmdir/power loops over shared names leak no device and no index;
# rmdir with fio I/O in flight removes the device and fio fails promptly
# (no hang), also while reads are held inside the driver (ftlblk_read_delay);
# power 0 with I/O in flight is EBUSY and fio's verification
# passes; a descriptor held across rmdir gets EOF/errors, not data. The
# only kernel log lines are the expected "cannot remove" ones.
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk ftlblk_read_delay
need_cmd fio errno-write heldfd
plan 34

cleanup() {
	for _p in $BG; do kill "$_p" 2>/dev/null; done
	wait 2>/dev/null
	exec 4<&- 2>/dev/null
	for _n in c m0 m1 m2 m3 r w p h z; do [ -d "$CFS/$_n" ] && rmdir "$CFS/$_n"; done
	rm -f /tmp/cr-*
	[ -d /sys/module/ftlblk_read_delay ] && rmmod ftlblk_read_delay
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
BG=
trap cleanup EXIT

# consistent NAME: power, index and /sys/block agree for $CFS/NAME.
consistent() {
	_p=$(cat "$CFS/$1/power") _i=$(cat "$CFS/$1/index")
	if [ "$_p" = 1 ]; then
		[ "$_i" -ge 0 ] && [ -e "/sys/block/ftlblk$_i" ]
	else
		[ "$_i" = -1 ]
	fi
}
disks() { ls -d /sys/block/ftlblk* 2>/dev/null | wc -l; }
# wait_file FILE SECS: FILE appears within SECS seconds. (A background
# child that has exited stays a zombie until waited for, so kill -0 cannot
# tell whether it is still running; the tests have it write a file.)
wait_file() {
	_t=0
	while [ ! -s "$1" ]; do
		[ $_t -ge $(($2 * 10)) ] && return 1
		sleep 0.1
		_t=$((_t + 1))
	done
}
wait_file_line() {
	_t=0
	while ! grep -q "$1" "$2"; do
		[ $_t -ge $(($3 * 10)) ] && return 1
		sleep 0.1
		_t=$((_t + 1))
	done
}
uptime_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }

# New directories default to a small valid geometry, so a power 1 racing
# a mkdir before its attributes are written still makes a working device.
ok "modprobe ftlblk nr_devices=0 size=4 pages_per_block=16" modprobe ftlblk nr_devices=0 size=4 pages_per_block=16

# ---- concurrent power writes on one device, openers racing ----------------
mkdir "$CFS/c" && echo 8 > "$CFS/c/size" && echo 16 > "$CFS/c/pages_per_block"
(for _ in $(seq 60); do echo 1 > "$CFS/c/power"; done 2>/dev/null) &
p1=$!
(for _ in $(seq 60); do echo 0 > "$CFS/c/power"; done 2>/dev/null) &
p2=$!
(for _ in $(seq 60); do
	i=$(cat "$CFS/c/index")
	[ "$i" -ge 0 ] && dd if="/dev/ftlblk$i" of=/dev/null bs=4k count=4 iflag=direct
done >/dev/null 2>&1) &
p3=$!
BG="$p1 $p2 $p3"
wait $p1 $p2 $p3
BG=
ok "after 60 power 1 / 60 power 0 racing: power, index and /sys/block agree" consistent c
is "$(errno-write "$CFS/c/power" 1)" ok "power 1 afterwards"
d=ftlblk$(cat "$CFS/c/index")
ok "/dev/$d takes 1 MiB and reads it back" sh -c \
	"dd if=/dev/urandom of=/tmp/cr-1 bs=64k count=16 2>/dev/null &&
	 dd if=/tmp/cr-1 of=/dev/$d bs=64k oflag=direct 2>/dev/null &&
	 dd if=/dev/$d bs=64k count=16 iflag=direct 2>/dev/null | cmp - /tmp/cr-1"
is "$(st "$d" valid_pages)" 256 "$d: a fresh device, exactly the 256 pages written"
is "$(errno-write "$CFS/c/power" 0)" ok "power 0"
ok "rmdir c" rmdir "$CFS/c"
is "$(disks)" 0 "no ftlblk disk left"

# ---- mkdir / power / rmdir loops over shared names ------------------------
mkloop() {
	for _ in $(seq 25); do
		for n in m0 m1 m2 m3; do
			mkdir "$CFS/$n" && echo 4 > "$CFS/$n/size" && echo 16 > "$CFS/$n/pages_per_block"
			echo 1 > "$CFS/$n/power"
			[ "$1" = rm ] && rmdir "$CFS/$n"
		done
	done >/dev/null 2>&1
}
mkloop rm & p1=$!
mkloop rm & p2=$!
mkloop keep & p3=$!
(for _ in $(seq 100); do for n in m0 m1 m2 m3; do echo 0 > "$CFS/$n/power"; done; done >/dev/null 2>&1) &
p4=$!
BG="$p1 $p2 $p3 $p4"
wait $p1 $p2 $p3 $p4
BG=
bad=
for n in m0 m1 m2 m3; do
	[ -d "$CFS/$n" ] || continue
	consistent $n || bad="$bad $n:power=$(cat "$CFS/$n/power"),index=$(cat "$CFS/$n/index")"
done
is "$bad" "" "after the mkdir/power/rmdir loops every directory is consistent"
is "$(disks)" "$(cat "$CFS"/m*/power 2>/dev/null | grep -c 1)" "one disk per powered directory, no orphan"
for n in m0 m1 m2 m3; do [ -d "$CFS/$n" ] && rmdir "$CFS/$n"; done
is "$(disks)" 0 "rmdir of the rest: no ftlblk disk left"
z=$(mkdev z size=8 pages_per_block=16)
is "$z" ftlblk0 "a new device gets index 0 again: no index leaked"
rmdir "$CFS/z"

# ---- rmdir with I/O in flight ---------------------------------------------
R=$(mkdev r size=16 pages_per_block=16)
(fio --eta=never --name=inflight --filename=/dev/"$R" --rw=randrw --bs=4k \
	--direct=1 --ioengine=libaio --iodepth=16 --numjobs=2 --time_based \
	--runtime=200 --output=/tmp/cr-fio-r.log >/dev/null 2>&1
 echo $? > /tmp/cr-fio-r.rc) &
fp=$!
BG=$fp
n=0
while [ "$(st "$R" host_pages_written)" = 0 ] && [ $n -lt 200 ]; do sleep 0.1; n=$((n + 1)); done
sleep 1
ok "fio is running on $R (host_pages_written $(st "$R" host_pages_written))" test ! -e /tmp/cr-fio-r.rc
ok "rmdir r while fio runs" rmdir "$CFS/r"
ok "/dev/$R and /sys/block/$R are gone" test ! -e "/dev/$R" -a ! -e "/sys/block/$R"
t0=$(uptime_ms)
ok "fio ends within 60 s of the rmdir (its runtime is 200 s)" wait_file /tmp/cr-fio-r.rc 60
diag "fio ended $(($(uptime_ms) - t0)) ms after the rmdir"
wait $fp
BG=
s=$(cat /tmp/cr-fio-r.rc)
ok "fio reports the failed I/O (exit $s)" test "$s" != 0

# ---- rmdir while reads are inside the driver ---------------------------------
# With ftlblk_read_delay each flash page a read copies waits 100 us inside
# queue_rq, so a 1 MiB read stays in the driver for ~26 ms and the rmdir
# surely meets reads half done. Removal must let them finish before it
# frees the FTL (del_gendisk() first): freed first, the next batch of such
# a read looks up pages in freed memory (mutant
# remove-frees-before-del-gendisk: an oops).
W=$(mkdev w size=16 pages_per_block=16)
dd if=/dev/urandom of=/dev/"$W" bs=1M count=16 oflag=direct 2>/dev/null
modprobe ftlblk_read_delay delay_us=100
(fio --eta=never --name=inread --filename=/dev/"$W" --rw=randread --bs=1M \
	--direct=1 --ioengine=libaio --iodepth=4 --numjobs=2 --time_based \
	--runtime=4 --output=/tmp/cr-fio-w.log >/dev/null 2>&1
 echo $? > /tmp/cr-fio-w.rc) &
fp=$!
BG=$fp
d0=$(reads_delayed)
n=0
while [ "$(reads_delayed)" = "$d0" ] && [ $n -lt 200 ]; do sleep 0.1; n=$((n + 1)); done
sleep 1
ok "fio reads $W slowly ($(($(reads_delayed) - d0)) page copies delayed so far)" \
	test ! -e /tmp/cr-fio-w.rc -a "$(reads_delayed)" != "$d0"
ok "rmdir w while 1 MiB reads are inside the driver" rmdir "$CFS/w"
# (A read past the end of a removed disk, whose capacity is now 0, is EOF,
# not an error, so fio may go on to the end of its 4 s.)
ok "fio ends, nothing hangs" wait_file /tmp/cr-fio-w.rc 60
wait $fp
BG=
rmmod ftlblk_read_delay

# ---- power 0 with I/O in flight is EBUSY -----------------------------------
P=$(mkdev p size=16 pages_per_block=16)
# serialize_overlap: fio's random map starts over when it is used up, so
# two writes of one block could be in flight at once and complete in
# either order, which no block device promises and verify would flag.
# fio also closes and reopens the disk at each such start (every 4096
# writes here): descriptor 4, held beside fio's, covers that gap, in which
# power 0 would rightly succeed.
exec 4<"/dev/$P"
fio --eta=never --name=busy --filename=/dev/"$P" --rw=randwrite --bs=4k \
	--direct=1 --ioengine=libaio --iodepth=8 --time_based --runtime=6 \
	--verify=crc32c --verify_backlog=64 --verify_fatal=1 --serialize_overlap=1 \
	--output=/tmp/cr-fio-p.log >/dev/null 2>&1 &
fp=$!
BG=$fp
n=0
while [ "$(st "$P" host_pages_written)" = 0 ] && [ $n -lt 200 ]; do sleep 0.1; n=$((n + 1)); done
# For 4 s from fio's first write, which fio's 6 s of I/O outlast.
busy=0 other=
t0=$(uptime_ms)
while [ $(($(uptime_ms) - t0)) -lt 4000 ]; do
	r=$(errno-write "$CFS/p/power" 0)
	case $r in
	EBUSY) busy=$((busy + 1)) ;;
	*) other="$other $r"; break ;;
	esac
	sleep 0.2
done
wait $fp
s=$?
exec 4<&-
BG=
diag "power 0 while fio ran: $busy x EBUSY, then:$other"
[ "$s" = 0 ] || diag "fio: $(tail -n 15 /tmp/cr-fio-p.log)"
ok "power 0 refused (EBUSY) at least 5 times while fio ran ($busy)" test $busy -ge 5
is "$other" "" "power 0 got nothing but EBUSY while fio ran"
is "$s" 0 "fio was not disturbed: exit 0, every verify_backlog check passed"
r=$(fio_reads /tmp/cr-fio-p.log)
ok "fio verified data while writing ($r pages read back)" test "${r:-0}" -gt 0
is "$(errno-write "$CFS/p/power" 0)" ok "power 0 once fio is done"
rmdir "$CFS/p"

# ---- a descriptor held across rmdir -----------------------------------------
H=$(mkdev h size=16 pages_per_block=16)
rm -f /tmp/cr-go
heldfd /dev/"$H" /tmp/cr-go > /tmp/cr-held 2>&1 &
hp=$!
BG=$hp
n=0
while ! grep -q before /tmp/cr-held && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
is "$(grep before /tmp/cr-held)" "before: write=ok:4096 read=ok:4096" "heldfd: I/O works before the rmdir"
ok "rmdir h while the descriptor is open" rmdir "$CFS/h"
touch /tmp/cr-go
ok "heldfd ends" wait_file_line after /tmp/cr-held 60
wait $hp
BG=
after=$(grep after /tmp/cr-held)
diag "$after"
case $after in
"after: read=ok:4096"*) r=data ;;
"after: read="*) r=no-data ;;
*) r="?" ;;
esac
is "$r" no-data "stale descriptor: the read returns no data ($after)"
case $after in
*" write=ok"*) w=written ;;
*" write="*) w=refused ;;
*) w="?" ;;
esac
is "$w" refused "stale descriptor: the write fails"
# The device's index and name can be reused at once.
H2=$(mkdev h size=16 pages_per_block=16)
ok "a new device ($H2) works after the hot unplug" sh -c \
	"dd if=/tmp/cr-1 of=/dev/$H2 bs=64k oflag=direct 2>/dev/null &&
	 dd if=/dev/$H2 bs=64k count=16 iflag=direct 2>/dev/null | cmp - /tmp/cr-1"
rmdir "$CFS/h"

ok "modprobe -r ftlblk" modprobe -r ftlblk
check_dmesg
# Only these ftlblk lines are expected: removals refused while open.
# Only these ftlblk lines are expected: removals refused while open,
# attributes refused while the mkdir loops raced a power 1, and the block
# layer's "attempt to access beyond end of device" for fio's I/O after
# rmdir set the capacity to 0 ("ftlblkN: rw=.., sector=.., limit=0").
unexpected=$(dmesg_since_start | grep 'ftlblk' | grep -v 'ftlblk[0-9]*: rw=[0-9]*, sector=[0-9]*, nr_sectors = [0-9]* limit=0$' | grep -v 'taints kernel\|module verification failed\|cannot remove: device is open or mounted\|cannot change size while powered on\|cannot change pages_per_block while powered on\|module loaded\|tap-lib-mark')
is "$unexpected" "" "no kernel log line about ftlblk but 'cannot remove' and 'cannot change'"
rm -f /tmp/cr-*
done_testing
