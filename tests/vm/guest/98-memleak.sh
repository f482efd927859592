#!/bin/sh
# Data pages come from alloc_pages(), which kmemleak does not track, so a
# leaked flash page is invisible to 99-kmemleak. Count free pages instead
# (/proc/zoneinfo: nr_free_pages plus the per-CPU lists, page cache
# dropped): writing must consume
# memory the size of the data, a full discard must give it back while the
# device lives, and after every path that allocates and frees data pages
# (overwrite, GC, 512-byte read-modify-write, partial and whole discards,
# write-zeroes, configfs device removal, module unload) the guest must have
# all of it back. Runs on every kernel.
. /tests/lib.sh
need_module ftlblk
need_cmd fio blkdiscard blkop
plan 12

MIB=256		# 65536 data pages: leaking 1 in 32 exceeds the tolerance
TOL_PAGES=1024	# 4 MiB; measured noise ~100 pages, metadata of this device ~600

# Free pages in the buddy allocator plus those parked on per-CPU lists
# (up to thousands after a big free, and not in nr_free_pages).
free_pages_now() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	awk '$1 == "nr_free_pages" { f += $2 } $1 == "count:" { f += $2 }
		END { print f }' /proc/zoneinfo
}
# Shortly after boot the kernel is still giving memory back (deferred
# frees): wait until two readings a second apart differ by < 1 MiB.
free_pages() {
	_prev=$(free_pages_now) _i=0
	while [ $_i -lt 30 ]; do
		sleep 1
		_cur=$(free_pages_now)
		_d=$((_cur - _prev))
		[ ${_d#-} -lt 256 ] && break
		_prev=$_cur _i=$((_i + 1))
	done
	echo "$_cur"
}

cleanup() {
	[ -d "$CFS/leak" ] && { echo 0 >"$CFS/leak/power"; rmdir "$CFS/leak"; }
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

base=$(free_pages)
ok "modprobe ftlblk size=$MIB pages_per_block=64" \
	modprobe ftlblk size=$MIB pages_per_block=64
ok "fill the device" dd if=/dev/urandom of=/dev/ftlblk0 bs=1M count=$MIB \
	oflag=direct status=none
full=$(free_pages)
used=$((base - full))
diag "free pages: $base before, $full with the device full (used $used)"
ok "writing $MIB MiB consumed about that much memory ($used pages)" \
	test "$used" -ge $((MIB * 256 - TOL_PAGES))

# GC (overwrites of a full device), 512-byte RMW, partial discards (trim of
# 512-byte pieces), write-zeroes with and without unmap.
ok "random overwrites with GC, 512-byte writes and trims" sh -c "
	fio --eta=never --output=/dev/null --filename=/dev/ftlblk0 --direct=1 \
		--name=gc --rw=randwrite --bs=4k --size=${MIB}M --io_size=$((MIB * 2))M \
		--name=rmw --stonewall --rw=randwrite --bs=512 --size=${MIB}M --io_size=8M \
		--name=trim --stonewall --rw=randtrim --bs=512 --size=${MIB}M --io_size=8M &&
	blkop zeroout /dev/ftlblk0 4096 1048576 >/dev/null &&
	blkop punch /dev/ftlblk0 2097152 1048576 >/dev/null"
gc=$(st ftlblk0 gc_runs)
ok "garbage collection ran ($gc)" test "${gc:-0}" -gt 0

ok "discard the whole device" blkdiscard -f /dev/ftlblk0
# Released pages wait in limbo for an RCU grace period (milliseconds)
# before they go back: within 5 s the pool must be down to its 2 MiB.
i=0
while [ $i -lt 50 ] && [ "$(st ftlblk0 pool_bytes)" -gt $((2 << 20)) ]; do
	sleep 0.1
	i=$((i + 1))
done
ok "limbo let go of the discarded pages (pool_bytes $(st ftlblk0 pool_bytes) <= 2 MiB)" \
	test "$(st ftlblk0 pool_bytes)" -le $((2 << 20))
empty=$(free_pages)
# The device itself still holds its recycle pool (up to 2 MiB) and its
# metadata; what it says it holds is not data, the rest must come back.
held=$((($(st ftlblk0 pool_bytes) + $(st ftlblk0 metadata_bytes)) / 4096))
diag "free pages after the full discard: $empty (data_bytes $(st ftlblk0 data_bytes), pool + metadata $held pages)"
ok "a full discard gave back the data memory ($((base - empty)) pages still used, $held of them pool and metadata)" \
	test $((base - empty - held)) -le $TOL_PAGES

# A configfs device that is removed with data in it, then the module.
dev=$(mkdev leak size=32 pages_per_block=16)
ok "a configfs device is filled, powered off and removed" sh -c "
	dd if=/dev/urandom of=/dev/$dev bs=1M count=32 oflag=direct status=none &&
	echo 0 >$CFS/leak/power && rmdir $CFS/leak"
dd if=/dev/urandom of=/dev/ftlblk0 bs=1M count=64 oflag=direct status=none
ok "modprobe -r ftlblk with data on the device" modprobe -r ftlblk
gone=$(free_pages)
diag "free pages after unload: $gone"
ok "after unload the guest has its memory back ($((base - gone)) pages missing, allowed $TOL_PAGES)" \
	test $((base - gone)) -le $TOL_PAGES
check_dmesg
