#!/bin/sh
# Module unload racing with I/O: while fio runs on the load-time device or on
# a configfs device, every modprobe -r / rmmod fails ("in use") and fio's
# verification passes; and load/unload cycles with a process opening
# /dev/ftlblk0 in a loop (opens racing the removal) always end unloaded,
# without a kernel complaint.
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
need_cmd fio
plan 15

cleanup() {
	for _p in $BG; do kill "$_p" 2>/dev/null; done
	wait 2>/dev/null
	release 2>/dev/null
	[ -d "$CFS/u" ] && rmdir "$CFS/u"
	rm -f /tmp/ur-*
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
BG=
trap cleanup EXIT

# fio_bg DEV LOG &: 6 s of random writes, each checked soon after.
fio_bg() {
	fio --eta=never --name=unload --filename=/dev/"$1" --rw=randwrite --bs=4k \
		--direct=1 --ioengine=libaio --iodepth=8 --time_based --runtime=6 \
		--verify=crc32c --verify_backlog=64 --verify_fatal=1 --serialize_overlap=1 \
		--output="$2" >/dev/null 2>&1
}
# fio_why LOG: fio's own words on a failed run (verify or I/O error), as
# TAP comments, so that a failure says whether data came back wrong.
fio_why() {
	grep -iE 'err=|verify|bad|crc|fail' "$1" 2>/dev/null | head -n 8 | sed 's/^/# fio: /'
}
# hold DEV / release: keep a descriptor on DEV open beside fio's. fio closes
# and reopens its file between passes over it (after every 8192 writes here,
# about once a second under TCG); an unload landing in that gap rightly
# succeeds and fio then fails to reopen. The extra descriptor closes the gap,
# so every refusal below is the kernel's module reference of an open disk.
hold() { exec 3<"/dev/$1"; }
release() { exec 3<&-; }
# unload_attempts: try modprobe -r and rmmod every 0.2 s for 4 s from fio's
# first write (fio's 6 s of I/O outlast them); sets busy
# (attempts refused saying "in use"; a KASAN kernel manages only a few
# in 4 s) and other (anything else).
unload_attempts() {
	busy=0 other=
	_t0=$(uptime_ms)
	while [ $(($(uptime_ms) - _t0)) -lt 4000 ]; do
		for _c in "modprobe -r ftlblk" "rmmod ftlblk"; do
			_o=$($_c 2>&1)
			_s=$?
			case "$_s:$_o" in
			0:*) other="$other [$_c succeeded]" ;;
			*"in use"*) busy=$((busy + 1)) ;;
			*) other="$other [$_c: $_o]" ;;
			esac
		done
		sleep 0.2
	done
}
uptime_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
# started DEV: wait until DEV has taken a write.
started() {
	_n=0
	while [ "$(st "$1" host_pages_written)" = 0 ] && [ $_n -lt 200 ]; do
		sleep 0.1
		_n=$((_n + 1))
	done
}

# ---- the load-time device --------------------------------------------------
ok "modprobe ftlblk size=32 pages_per_block=64" modprobe ftlblk size=32 pages_per_block=64
hold ftlblk0
fio_bg ftlblk0 /tmp/ur-0.log &
fp=$!
BG=$fp
started ftlblk0
unload_attempts
wait $fp
s=$?
release
BG=
ok "modprobe -r / rmmod refused as 'in use' while fio ran on ftlblk0 ($busy times)" test $busy -ge 2
is "$other" "" "no unload attempt did anything else"
is "$s" 0 "fio on ftlblk0: exit 0, every verify_backlog check passed" || fio_why /tmp/ur-0.log
r=$(fio_reads /tmp/ur-0.log)
ok "fio verified while writing ($r pages read back)" test "${r:-0}" -gt 0
ok "ftlblk0 still works" sh -c 'test -b /dev/ftlblk0 && dd if=/dev/urandom of=/tmp/ur-d bs=64k count=4 2>/dev/null &&
	dd if=/tmp/ur-d of=/dev/ftlblk0 bs=64k oflag=direct 2>/dev/null &&
	dd if=/dev/ftlblk0 bs=64k count=4 iflag=direct 2>/dev/null | cmp - /tmp/ur-d'

# ---- a configfs device ------------------------------------------------------
U=$(mkdev u size=16 pages_per_block=16)
hold "$U"
fio_bg "$U" /tmp/ur-u.log &
fp=$!
BG=$fp
started "$U"
unload_attempts
wait $fp
s=$?
release
BG=
ok "unload refused as 'in use' while fio ran on $U ($busy times)" test $busy -ge 2
is "$other" "" "no unload attempt did anything else"
is "$s" 0 "fio on $U: exit 0, every verify_backlog check passed" || fio_why /tmp/ur-u.log
ok "rmdir u" rmdir "$CFS/u"
ok "modprobe -r ftlblk once idle" modprobe -r ftlblk

# ---- load/unload cycles with openers racing the removal ------------------------
fails=
for i in 1 2 3 4 5 6 7 8; do
	modprobe ftlblk size=8 pages_per_block=16 || { fails="$fails load$i"; continue; }
	(while :; do dd if=/dev/ftlblk0 of=/dev/null bs=4k count=8 iflag=direct; done >/dev/null 2>&1) &
	rp=$!
	BG=$rp
	sleep 0.3
	n=0
	while [ -d /sys/module/ftlblk ] && [ $n -lt 300 ]; do
		modprobe -r ftlblk >/dev/null 2>&1 || sleep 0.05
		n=$((n + 1))
	done
	kill $rp
	wait $rp 2>/dev/null
	BG=
	[ -d /sys/module/ftlblk ] && fails="$fails unload$i"
done
is "$fails" "" "8 load/unload cycles with a reader opening ftlblk0 in a loop: each unloaded"
ok "no ftlblk disk left" test ! -e /sys/block/ftlblk0 -a ! -e /dev/ftlblk0
ok "modprobe ftlblk works afterwards" sh -c 'modprobe ftlblk size=8 pages_per_block=16 && test -b /dev/ftlblk0 &&
	dd if=/tmp/ur-d of=/dev/ftlblk0 bs=64k oflag=direct 2>/dev/null &&
	dd if=/dev/ftlblk0 bs=64k count=4 iflag=direct 2>/dev/null | cmp - /tmp/ur-d &&
	modprobe -r ftlblk'
rm -f /tmp/ur-*
check_dmesg
done_testing
