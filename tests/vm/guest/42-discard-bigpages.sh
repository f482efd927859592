#!/bin/sh
# Partial discards with 8 and 16 KiB flash pages (512-byte sectors): the
# covered sectors of a partly covered head or tail page read back as zeroes
# and nothing else in that page changes (sector-exact, against a reference
# image), flash pages fully covered are unmapped (valid_pages and data_bytes
# drop by exactly those pages), the sectors just outside the range keep
# their data, and the counters say exactly that.
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
need_cmd blkdiscard md5sum
plan 77

SIZE=$((16 << 20))
KEYS="discard_sectors pages_discarded valid_pages_discarded sectors_zeroed
valid_pages host_pages_written data_bytes"
_b_valid_pages=0
# sect FILE SECTOR COUNT: COUNT 512-byte sectors at SECTOR, on stdout.
sect() {
	case $1 in
	/dev/*) dd if="$1" bs=512 skip="$2" count="$3" iflag=direct 2>/dev/null ;;
	*) dd if="$1" bs=512 skip="$2" count="$3" 2>/dev/null ;;
	esac
}
# same_sect SECTOR: that sector of the device equals the reference, and
# both reads returned a full sector of real data.
same_sect() {
	[ "$(sect "/dev/$D" "$1" 1 | wc -c)" = 512 ] &&
	[ "$(sect "/dev/$D" "$1" 1 | md5sum)" = "$(sect /tmp/bp.ref "$1" 1 | md5sum)" ] &&
	[ "$(sect /tmp/bp.ref "$1" 1 | tr -d '\000' | wc -c)" -gt 0 ]
}
outside() { same_sect "$1" && same_sect "$2"; }

# case DESC OFF LEN: blkdiscard OFF LEN on $D (page size $P) and check it.
case_() {
	c_d="$P B pages, $1" c_off=$2 c_len=$3
	spp=$((P / 512)) s0=$((c_off / 512)) s1=$(((c_off + c_len) / 512))
	first=$(((s0 + spp - 1) / spp)) last=$((s1 / spp))
	whole=$((last - first))
	[ $whole -ge 0 ] || whole=0
	zeroed=$((s1 - s0 - whole * spp))
	# Partly covered pages: each is read-modify-written once.
	if [ $whole = 0 ] && [ $((s0 / spp)) = $(((s1 - 1) / spp)) ]; then
		partial=$([ $zeroed -gt 0 ] && echo 1 || echo 0)
	else
		partial=$(($([ $((s0 % spp)) != 0 ] && echo 1 || echo 0) + $([ $((s1 % spp)) != 0 ] && echo 1 || echo 0)))
	fi
	snap "$D"
	ok "$c_d: blkdiscard -o $c_off -l $c_len" blkdiscard -f -o "$c_off" -l "$c_len" "/dev/$D"
	is "$(deltas "$D")" \
		"discard_sectors=$((c_len / 512)) pages_discarded=$whole valid_pages_discarded=$whole sectors_zeroed=$zeroed valid_pages=$((0 - whole)) host_pages_written=$partial data_bytes=$((0 - whole * P))" \
		"$c_d: $whole whole pages unmapped, $zeroed sectors zeroed in $partial partial pages"
	is "$(sect "/dev/$D" "$s0" $((s1 - s0)) | tr -d '\000' | wc -c)" 0 "$c_d: the range reads as zeroes"
	# The sector before and after the range (the device's last sector has
	# none after: then the second before).
	a=$s1
	[ $a -lt $((SIZE / 512)) ] || a=$((s0 - 2))
	ok "$c_d: sectors $((s0 - 1)) and $a (just outside) keep their data" \
		outside $((s0 - 1)) $a
	dd if=/dev/zero of=/tmp/bp.ref bs=512 seek="$s0" count=$((s1 - s0)) conv=notrunc 2>/dev/null
	ok "$c_d: the whole device equals the reference with the range zeroed" cmp "/dev/$D" /tmp/bp.ref
}

cleanup() {
	[ -d "$CFS/bp" ] && rmdir "$CFS/bp"
	rm -f /tmp/bp.ref /tmp/bp.src
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
dd if=/dev/urandom of=/tmp/bp.src bs=1M count=16 2>/dev/null
for P in 8192 16384; do
	# 20 % spare: 16 KiB pages need it for the 4 spare blocks GC wants.
	D=$(mkdev bp size=16 blocksize=512 page_size=$P pages_per_block=32 op_percent=20)
	cp /tmp/bp.src /tmp/bp.ref
	ok "$P B pages: device $D filled" sh -c "test -b /dev/$D && dd if=/tmp/bp.ref of=/dev/$D bs=1M oflag=direct 2>/dev/null"
	is "$(st "$D" valid_pages) $(sysfs_read /sys/block/"$D"/queue/discard_granularity)" "$((SIZE / P)) $P" \
		"$P B pages: all $((SIZE / P)) pages valid, discard_granularity $P"
	# head partial (from sector 3) + 2 whole pages + 2 sectors of the next
	case_ "head+2 whole+tail" $((10 * P + 1536)) $((P - 1536 + 2 * P + 1024))
	# 4 sectors in the middle of one page
	case_ "inside one page" $((20 * P + 1024)) 2048
	# the last 2 sectors of one page and the first 2 of the next
	case_ "two partial pages" $((31 * P - 1024)) 2048
	# exactly one page
	case_ "one whole page" $((40 * P)) "$P"
	# 70 pages' worth from sector 1 of page 100, across erase blocks
	case_ "70 pages across erase blocks" $((100 * P + 512)) $((70 * P))
	# one whole page and the first sector of the next
	case_ "whole page+1 sector" $((200 * P)) $((P + 512))
	# the last 2 sectors of the device
	case_ "last 2 sectors" $((SIZE - 1024)) 1024
	rmdir "$CFS/bp"
done
rm -f /tmp/bp.src /tmp/bp.ref
ok "modprobe -r ftlblk" modprobe -r ftlblk
check_dmesg
done_testing
