#!/bin/sh
# Reads of unmapped pages (never written, or discarded) fill the caller's
# buffer with zeroes, also when that buffer still holds other data: O_DIRECT
# reads with one reused buffer, page by page and in multi-page requests
# that mix mapped and unmapped pages (512-byte reads are compared too, but
# busybox dd may serve those through the page cache). A fresh buffer
# (or a page-cache page, zeroed on allocation by Debian's kernel) reads as
# zeroes even if the driver leaves it alone, which is how the mutant
# unmapped-read-stale (read_chunk()'s zero fill removed) passed every other
# test. The counters see exactly the unmapped pages read.
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
need_cmd blkdiscard md5sum
plan 13

cleanup() {
	[ -d "$CFS/ur" ] && rmdir "$CFS/ur"
	rm -f /tmp/ur.ref /tmp/ur.data
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

rmdir "$CFS/ur"
ok "modprobe -r ftlblk" modprobe -r ftlblk
check_dmesg
done_testing
