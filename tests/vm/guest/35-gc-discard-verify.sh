#!/bin/sh
# Discards concurrent with garbage collection and static wear leveling,
# under data verification. On one 32 MiB device with wl_threshold=2, at the
# same time:
#   [0, 12M)   fio rw=randtrimwrite: trims each 4 KiB block, then writes it
#              with a crc32c header, three passes, verified;
#   [12M, 24M) fio random 4 KiB overwrites (3 x), verified at the end;
#   [24M, 32M) random data, and a shell loop discarding 80 random ranges of
#              it (many not page-aligned: partial pages are zeroed by
#              read-modify-write while GC moves their blocks).
# Then GC ran (gc_runs, erases), wear leveling moved data (wl_runs,
# wl_relocations), fio's checks pass, and the last region equals its
# reference image with exactly the discarded ranges zeroed.
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
need_cmd fio blkdiscard
plan 16

cleanup() {
	for _p in $BG; do kill "$_p" 2>/dev/null; done
	wait 2>/dev/null
	[ -d "$CFS/gd" ] && rmdir "$CFS/gd"
	rm -f /tmp/gd-*
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
BG=
trap cleanup EXIT

M=$((1 << 20))
ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
# 32 MiB, 512-byte sectors, 4 KiB pages, 32 per block: 256 blocks + 18 spare.
D=$(mkdev gd size=32 blocksize=512 pages_per_block=32 wl_threshold=2)
ok "device $D, region C filled with random data" sh -c \
	"test -b /dev/$D && dd if=/dev/urandom of=/tmp/gd-c.ref bs=1M count=8 2>/dev/null &&
	 dd if=/tmp/gd-c.ref of=/dev/$D bs=1M seek=24 oflag=direct 2>/dev/null"
g0=$(st "$D" gc_runs) e0=$(st "$D" erases) w0=$(st "$D" wl_runs) r0=$(st "$D" wl_relocations)

# 80 random discards inside region C: sector offset and length (1..300
# sectors), both in 512-byte units, so most are not page-aligned.
awk -v base=$((24 * M / 512)) -v n=$((8 * M / 512)) 'BEGIN {
	srand(35)
	for (i = 0; i < 80; i++) {
		len = 1 + int(rand() * 300)
		off = int(rand() * (n - len))
		print base + off, len
	} }' > /tmp/gd-ranges

fio --eta=never --output=/tmp/gd-fio.log --output-format=json \
	--filename=/dev/"$D" --direct=1 --bs=4k --verify=crc32c --verify_fatal=1 \
	--do_verify=1 --randrepeat=0 \
	--name=trimwrite --rw=randtrimwrite --offset=0 --size=12M --loops=3 \
	--name=overwrite --rw=randwrite --offset=12M --size=12M --io_size=36M \
	--norandommap >/tmp/gd-fio.out 2>&1 &
fp=$!
BG=$fp
ok "80 discard ranges drawn" test "$(wc -l < /tmp/gd-ranges)" = 80
# gc_runs when the discards start and end: GC must run between them.
(st "$D" gc_runs > /tmp/gd-gc0
while read -r s l; do
	blkdiscard -f -o $((s * 512)) -l $((l * 512)) /dev/"$D" 2>/dev/null || echo "failed $s $l"
	sleep 0.05
done < /tmp/gd-ranges > /tmp/gd-disc.out
st "$D" gc_runs > /tmp/gd-gc1) &
dp=$!
BG="$fp $dp"
wait $dp
ds=$?
wait $fp
fs=$?
BG=
is "$fs" 0 "fio (trim+write and overwrite jobs, crc32c verify) exits 0"
is "$(cat /tmp/gd-disc.out)" "" "all 80 concurrent blkdiscards succeeded (exit $ds)"
gd0=$(cat /tmp/gd-gc0) gd1=$(cat /tmp/gd-gc1)
ok "GC ran while the discards ran (gc_runs $gd0 -> $gd1)" test "${gd1:-0}" -gt "${gd0:-0}"
trims=$(awk '/"trim" :/ { t = 1 } t && /"total_ios"/ { gsub(/[^0-9]/, "", $0); s += $0; t = 0 } END { print s + 0 }' /tmp/gd-fio.log)
vr=$(awk '/"read" :/ { r = 1 } r && /"io_bytes"/ { gsub(/[^0-9]/, "", $0); s += $0; r = 0 } END { print s + 0 }' /tmp/gd-fio.log)
diag "fio: $trims trims, $vr bytes verified"
ok "fio trimmed every block of region A three times ($trims >= 9216)" test "$trims" -ge 9216
ok "fio verified >= 20 MiB ($vr bytes)" test "$vr" -ge $((20 * M))

# The reference: region C with every discarded range zeroed.
while read -r s l; do
	dd if=/dev/zero of=/tmp/gd-c.ref bs=512 seek=$((s - 24 * M / 512)) count="$l" conv=notrunc 2>/dev/null
done < /tmp/gd-ranges
ok "region C equals its reference with exactly the discarded ranges zeroed" sh -c \
	"dd if=/dev/$D bs=1M skip=24 iflag=direct 2>/dev/null | cmp - /tmp/gd-c.ref"

g=$(($(st "$D" gc_runs) - g0)) e=$(($(st "$D" erases) - e0))
w=$(($(st "$D" wl_runs) - w0)) r=$(($(st "$D" wl_relocations) - r0))
diag "gc_runs +$g erases +$e wl_runs +$w wl_relocations +$r erase_min $(st "$D" erase_min) erase_max $(st "$D" erase_max) discard_requests $(st "$D" discard_requests) sectors_zeroed $(st "$D" sectors_zeroed)"
ok "garbage collection ran (gc_runs +$g, erases +$e)" test "$g" -gt 0 -a "$e" -gt 0
ok "wear leveling ran (wl_runs +$w)" test "$w" -gt 0
ok "wear leveling moved data (wl_relocations +$r)" test "$r" -gt 0
ok "partial pages were zeroed (sectors_zeroed $(st "$D" sectors_zeroed))" test "$(st "$D" sectors_zeroed)" -gt 0
is "$(st "$D" nand_pages_written)" \
	$(($(st "$D" host_pages_written) + $(st "$D" gc_relocations) + $(st "$D" wl_relocations))) \
	"nand_pages_written = host + GC + WL relocations"

rmdir "$CFS/gd"
rm -f /tmp/gd-*
ok "modprobe -r ftlblk" modprobe -r ftlblk
check_dmesg
done_testing
