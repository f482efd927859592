#!/bin/sh
# Reads of unmapped pages (never written, or discarded) fill the caller's
# buffer with zeroes, also when that buffer still holds other data: O_DIRECT
# reads with one reused buffer, page by page and in multi-page requests
# that mix mapped and unmapped pages (512-byte reads are compared too, but
# busybox dd may serve those through the page cache). A fresh buffer
# (or a page-cache page, zeroed on allocation by Debian's kernel) reads as
# zeroes even if the driver leaves it alone, which is how the mutant
# unmapped-read-stale (cursor_copy()'s zero fill removed) passed every other
# test. The counters see exactly the unmapped pages read. And a write of
# one sector into a page that holds nothing leaves the page's other
# sectors zero, although its new data page comes from the pool with some
# other page's old data (mutant partial-write-stale-around).
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
need_cmd blkdiscard md5sum fio
plan 17

cleanup() {
	[ -d "$CFS/ur" ] && rmdir "$CFS/ur"
	rm -f /tmp/ur.ref /tmp/ur.data /tmp/ur.pat
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

# sum BS COUNT [SKIP]: md5 of an O_DIRECT read of COUNT blocks of BS bytes.
sum() { dd if="/dev/$D" bs="$1" count="$2" skip="${3:-0}" iflag=direct 2>/dev/null | md5sum; }
refsum() { dd if=/tmp/ur.ref bs="$1" count="$2" skip="${3:-0}" 2>/dev/null | md5sum; }

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
D=$(mkdev ur size=16 pages_per_block=64)
ok "device $D" test -b "/dev/$D"

# Pages 0..15 random data, then pages 2, 5 and 6 discarded; 16.. never
# written. The reference: the same, with zeroes, 128 KiB (32 pages).
dd if=/dev/urandom of=/tmp/ur.data bs=4096 count=16 2>/dev/null
ok "write pages 0..15" dd if=/tmp/ur.data of="/dev/$D" bs=64k oflag=direct
ok "discard pages 2, 5 and 6" sh -c \
	"blkdiscard -f -o 8192 -l 4096 /dev/$D && blkdiscard -f -o 20480 -l 8192 /dev/$D"
{
	dd if=/tmp/ur.data bs=4096 count=2 2>/dev/null
	dd if=/dev/zero bs=4096 count=1 2>/dev/null
	dd if=/tmp/ur.data bs=4096 skip=3 count=2 2>/dev/null
	dd if=/dev/zero bs=4096 count=2 2>/dev/null
	dd if=/tmp/ur.data bs=4096 skip=7 count=9 2>/dev/null
	dd if=/dev/zero bs=4096 count=16 2>/dev/null
} >/tmp/ur.ref
is "$(wc -c </tmp/ur.ref)" 131072 "reference: 32 pages"

r0=$(st "$D" host_pages_read) u0=$(st "$D" unmapped_reads)
is "$(sum 4096 24)" "$(refsum 4096 24)" \
	"page by page through one buffer: unmapped pages 2, 5, 6, 16..23 read as zeroes"
is "$(($(st "$D" host_pages_read) - r0)) $(($(st "$D" unmapped_reads) - u0))" "24 11" \
	"24 pages read, 11 of them unmapped"
is "$(sum 8192 12)" "$(refsum 8192 12)" "8 KiB requests (mapped + unmapped pages in one request)"
is "$(sum 12288 8)" "$(refsum 12288 8)" "12 KiB requests"
is "$(sum 512 48 8)" "$(refsum 512 48 8)" "512-byte reads from page 1 through page 6"
is "$(sum 65536 2)" "$(refsum 65536 2)" "64 KiB requests: pages 16..31 (unmapped) into the buffer that held 0..15"

# ---- sub-page writes into pages that hold nothing -------------------------
# A 512-byte write into a page never written or discarded gets a data page
# from the pool, where released pages of other logical pages wait with
# their old data: the page's other 7 sectors must read zeroes, or one
# file's data shows up in another. Pages 32..95 and 96..159 get random
# data, which is discarded (so the pool refills with those pages after
# their grace period); then one sector (sector 3) of each page is written.
# pattern_pages N: the expected N pages: sector 3 of each 0x5a, the rest 0.
pattern_pages() {
	_i=0
	while [ $_i -lt "$1" ]; do
		dd if=/dev/zero bs=512 count=3 2>/dev/null
		dd if=/dev/zero bs=512 count=1 2>/dev/null | tr '\000' '\132'
		dd if=/dev/zero bs=512 count=4 2>/dev/null
		_i=$((_i + 1))
	done
}
pattern_pages 64 >/tmp/ur.pat
# sectors DEV FIRST_PAGE: a 512-byte write into sector 3 of 64 pages
sectors() {
	fio --eta=never --name=sub --filename="/dev/$1" --rw=write:3584 --bs=512 --direct=1 \
		--offset=$(($2 * 4096 + 1536)) --size=$((64 * 4096 - 1536)) \
		--buffer_pattern=0x5a --output=/dev/null
}
# pages DEV FIRST_PAGE: md5 of 64 pages read with O_DIRECT
pages() { dd if="/dev/$1" bs=4096 skip="$2" count=64 iflag=direct 2>/dev/null | md5sum; }
stale() { dd if=/dev/urandom of="/dev/$1" bs=4096 seek="$2" count=64 oflag=direct 2>/dev/null; }

stale "$D" 32
blkdiscard -f -o $((32 * 4096)) -l $((64 * 4096)) "/dev/$D"
sleep 0.2
w0=$(st "$D" host_pages_written)
sectors "$D" 32
is "$(pages "$D" 32)" "$(md5sum </tmp/ur.pat)" \
	"one sector written into each of 64 discarded pages: the other 7 sectors read zeroes"
is "$(($(st "$D" host_pages_written) - w0))" 64 "64 pages programmed (read-modify-write of zeroes)"
rmdir "$CFS/ur"

# The same with the write cache: pages that hold nothing on flash, and
# pages whose latest update is a cached discard.
D=$(mkdev ur size=16 pages_per_block=64 write_cache=1)
stale "$D" 32
dd if=/dev/null of="/dev/$D" conv=fsync,notrunc 2>/dev/null
blkdiscard -f -o $((32 * 4096)) -l $((64 * 4096)) "/dev/$D"
dd if=/dev/null of="/dev/$D" conv=fsync,notrunc 2>/dev/null
stale "$D" 96
blkdiscard -f -o $((96 * 4096)) -l $((64 * 4096)) "/dev/$D"
sleep 0.2
sectors "$D" 32
sectors "$D" 96
is "$(pages "$D" 32)" "$(md5sum </tmp/ur.pat)" \
	"write cache: one sector into each of 64 pages discarded on flash: the rest reads zeroes"
is "$(pages "$D" 96)" "$(md5sum </tmp/ur.pat)" \
	"write cache: one sector into each of 64 pages whose cached update is a discard: the rest reads zeroes"
rmdir "$CFS/ur"
ok "modprobe -r ftlblk" modprobe -r ftlblk
check_dmesg
done_testing
