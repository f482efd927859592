#!/bin/sh
# Static wear leveling in the kernel: a device full of cold data whose first
# 512 KiB is rewritten over and over (fio, crc32c). Without wear leveling
# the cold blocks are never erased and the erase-count spread grows with the
# hot writes; with wl_threshold=4 the cold data is moved (wl_runs and
# wl_relocations > 0, every cold block erased at least once) and the spread
# is at most half of that without -- the same criterion as ftlsim's theory
# test. The cold data reads back exactly after being moved, and fio verifies
# the hot data.
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
need_cmd fio
plan 18

cleanup() {
	for n in off on; do [ -d "$CFS/wl$n" ] && rmdir "$CFS/wl$n"; done
	rm -f /tmp/wl.ref /tmp/wl.ref.cold /tmp/wl-*.log
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
# 4 MiB of 4 KiB pages, 16 per block: 64 blocks of data + 7 spare (10 %).
ok "4 MiB of random data" sh -c 'dd if=/dev/urandom of=/tmp/wl.ref bs=1M count=4 2>/dev/null &&
	dd if=/tmp/wl.ref of=/tmp/wl.ref.cold bs=512k skip=1 2>/dev/null'
for mode in off on; do
	if [ $mode = on ]; then th=4; else th=0; fi
	D=$(mkdev wl$mode size=4 blocksize=4096 pages_per_block=16 op_percent=10 wl_threshold=$th)
	ok "wl_threshold=$th: device $D filled with cold data" sh -c \
		"test -b /dev/$D && dd if=/tmp/wl.ref of=/dev/$D bs=1M oflag=direct 2>/dev/null"
	ok "wl_threshold=$th: 32 MiB of random 4 KiB writes to the first 512 KiB, verified" \
		fio --eta=never --name=hot --filename=/dev/"$D" --rw=randwrite --bs=4k \
		--direct=1 --size=512k --io_size=32M --norandommap --randrepeat=0 \
		--verify=crc32c --verify_fatal=1 --do_verify=1 --output=/tmp/wl-$mode.log
	ok "wl_threshold=$th: the 3.5 MiB of cold data read back unchanged" sh -c \
		"dd if=/dev/$D bs=512k skip=1 iflag=direct 2>/dev/null | cmp - /tmp/wl.ref.cold"
	eval "min_$mode=\$(st $D erase_min) max_$mode=\$(st $D erase_max)"
	eval "wlr_$mode=\$(st $D wl_runs) wlp_$mode=\$(st $D wl_relocations)"
	diag "wl_threshold=$th: erase_min=$(st "$D" erase_min) erase_max=$(st "$D" erase_max) erase_mean=$(st "$D" erase_mean) wl_runs=$(st "$D" wl_runs) wl_relocations=$(st "$D" wl_relocations) gc_runs=$(st "$D" gc_runs) erases=$(st "$D" erases)"
	is "$(st "$D" nand_pages_written)" \
		$(($(st "$D" host_pages_written) + $(st "$D" gc_relocations) + $(st "$D" wl_relocations))) \
		"wl_threshold=$th: nand_pages_written = host + GC + WL relocations"
done
# shellcheck disable=SC2154 # set by eval above
{
is "$wlr_off $wlp_off $min_off" "0 0 0" "without wear leveling: no WL run, cold blocks never erased (erase_min 0)"
ok "without wear leveling the spread grows: erase_max $max_off >= 16" test "$max_off" -ge 16
ok "with wl_threshold=4 wear leveling ran ($wlr_on runs)" test "$wlr_on" -gt 0
ok "and moved data ($wlp_on pages)" test "$wlp_on" -gt 0
ok "every cold block was erased at least once (erase_min $min_on > 0)" test "$min_on" -gt 0
spread_off=$((max_off - min_off)) spread_on=$((max_on - min_on))
ok "wear leveling at least halves the spread: $spread_on <= $spread_off / 2" \
	test $((2 * spread_on)) -le "$spread_off"
}
for n in off on; do rmdir "$CFS/wl$n"; done
rm -f /tmp/wl.ref /tmp/wl.ref.cold /tmp/wl-*.log
ok "modprobe -r ftlblk" modprobe -r ftlblk
check_dmesg
done_testing
