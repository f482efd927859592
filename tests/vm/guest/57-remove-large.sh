#!/bin/sh
# Removing a large device: a full 1 GiB device (262144 data pages) and one
# whose 512 MiB write cache is full are powered off. No reader can reach
# their pages any more (del_gendisk()), so they go back to the system at
# once, in batches, rescheduling between them: a task that sleeps 1 ms at
# a time on the removing CPU (wakelat) is never held up for long (freeing
# each page by its own RCU callback, with no reschedule in ftl_destroy()'s
# loop, holds it up for about 80 ms per GiB under TCG), and the memory is
# back when the removal returns.
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
need_cmd wakelat taskset
plan 7

MAX_US=40000	# measured: 2-6 ms idle, about 10 ms during a removal

cleanup() {
	for n in big cache; do
		[ -d "$CFS/$n" ] && { echo 0 >"$CFS/$n/power"; rmdir "$CFS/$n"; }
	done
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
# Free memory, MiB: the buddy allocator's plus the per-CPU lists' pages
# (after a large free, newer kernels keep many there, outside MemFree).
free_mib() {
	awk '$1 == "nr_free_pages" { f += $2 } $1 == "count:" { f += $2 }
		END { print int(f * 4 / 1024) }' /proc/zoneinfo
}
# remove NAME: power it off on CPU 0 while wakelat sleeps there; prints
# "MS MAX_US" (the removal's time, wakelat's longest overrun).
remove() {
	taskset 1 wakelat 2 >/tmp/rl-wl &
	_w=$!
	sleep 0.3
	_t0=$(ms)
	taskset 1 sh -c "echo 0 > $CFS/$1/power"
	_t1=$(ms)
	wait $_w
	echo "$((_t1 - _t0)) $(sed -n 's/^max_us \([0-9]*\) .*/\1/p' /tmp/rl-wl)"
}

# removed NAME DESC: power NAME off (remove) and check the CPU and the memory.
removed() {
	# shellcheck disable=SC2046 # the time and the overrun
	set -- $(remove "$1") "$2" "$1"
	diag "power off of $3: $1 ms, wakelat's longest overrun $2 us"
	ok "removing it kept CPU 0 from wakelat for at most $((MAX_US / 1000)) ms ($2 us)" \
		test "${2:-999999}" -le $MAX_US
	ok "and the memory is back at once ($free0 MiB free before, $(free_mib) after)" \
		test "$(free_mib)" -ge $((free0 - 16))
	rmdir "$CFS/$4"
}

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
diag "idle: wakelat on CPU 0: $(taskset 1 wakelat 1)"

free0=$(free_mib)
D=$(mkdev big size=1024)
dd if=/dev/zero of="/dev/$D" bs=1M count=1024 oflag=direct 2>/dev/null
is "$(st "$D" data_bytes)" $((1 << 30)) "$D holds 1 GiB of data (262144 pages)"
removed big "the full 1 GiB device"

C=$(mkdev cache size=1024 write_cache=1 cache_mib=512)
dd if=/dev/zero of="/dev/$C" bs=1M count=512 oflag=direct 2>/dev/null
is "$(st "$C" cached_pages)" 131072 "$C: 512 MiB written, all of it in the write cache"
removed cache "the device with 512 MiB cached"
done_testing
