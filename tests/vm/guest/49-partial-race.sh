#!/bin/sh
# Concurrent partial-page writes: writers that share flash pages but never
# a sector (sector-race: writer k owns sector k of every page) must never
# lose one another's updates - what a filesystem with blocks smaller than
# the flash page (vfat with small clusters, ext4 -b 1024, XFS metadata in
# 512-byte sectors) does all the time. Each partial write is a
# read-modify-write of its page, which must read and store in one step.
# A few pages rewritten many times, so that the writers on both CPUs are
# on the same page most of the time; with and without the write cache,
# and with 16 KiB pages (16 writers of 1 KiB each).
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
need_cmd sector-race
plan 5

cleanup() {
	for n in sr0 sr1 sr2; do [ -d "$CFS/$n" ] && rmdir "$CFS/$n"; done
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

# race NAME DEV SECTOR-RACE-ARGS...: one run; its summary is the diag.
race() {
	_n=$1 _d=$2
	shift 2
	_out=$(sector-race "$@" "/dev/$_d" 2>&1)
	_rc=$?
	diag "$_n: $_out"
	is "$_rc $(echo "$_out" | sed -n 's/.* lost=\([0-9]*\) wrong=\([0-9]*\)$/lost=\1 wrong=\2/p')" \
		"0 lost=0 wrong=0" "$_n: every sector holds its writer's last update"
}

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
D0=$(mkdev sr0 size=16 pages_per_block=64)
race "8 writers of 512 B on 4 KiB pages, no cache" "$D0" -w 8 -p 4 -r 3000
D1=$(mkdev sr1 size=16 pages_per_block=64 write_cache=1 cache_mib=1)
race "8 writers, write cache of 1 MiB" "$D1" -w 8 -p 16 -r 600
D2=$(mkdev sr2 size=32 page_size=16384 pages_per_block=32)
race "16 writers of 1 KiB on 16 KiB pages" "$D2" -w 16 -S 1024 -P 16384 -p 4 -r 500
ok "modprobe -r ftlblk" sh -c "rmdir $CFS/sr0 $CFS/sr1 $CFS/sr2 && modprobe -r ftlblk"
done_testing
