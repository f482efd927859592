#!/bin/sh
# What stays in the flash: remanence, the raw flash image and its map
# (debugfs), secure erase, write zeroes with unmap. Each marker is a page
# filled with "MARK-<tag>-"; pagegrep finds the physical pages that hold
# it in /sys/kernel/debug/ftlblk/ftlblkN/flash, so every check below looks
# at the chips, not at what the host reads back:
#  - remanence=1: an overwritten, discarded or zeroed-out page stays in
#    the image (stale) until its block is erased; pages_stale counts it and
#    data_bytes holds it; at mem_limit_mib the device erases stale blocks
#    rather than refuse writes;
#  - remanence=0: the old copy is dropped (the map says "dropped");
#  - secure erase removes every copy of the range, current and stale,
#    partial pages included, leaves every other page's data, and over the
#    whole device leaves every block erased (0xff); secure_erase=0 refuses
#    it;
#  - write zeroes with unmap (6.17+: FALLOC_FL_WRITE_ZEROES) deallocates
#    but is not an erase; before 6.17 the kernel refuses it (EOPNOTSUPP).
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
need_cmd blkop pagegrep md5sum blkdiscard
# 6.17+: five points on write zeroes with unmap, before: three.
if kernel_at_least 6.17; then plan 52; else plan 50; fi

cleanup() {
	for _d in rm sec tm r0 ml wz0; do
		[ -d "$CFS/$_d" ] && rmdir "$CFS/$_d"
	done
	rm -f /tmp/rm.ff /tmp/rm.rnd
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

# mark TAG: one 4 KiB page of "MARK-TAG-" repeated.
mark() {
	awk -v t="MARK-$1-" 'BEGIN { s = t; while (length(s) < 4096) s = s s;
		printf "%s", substr(s, 1, 4096) }'
}
# wpage DEV LPN TAG: write the marker page TAG at logical page LPN.
wpage() { mark "$3" | dd of="/dev/$1" bs=4096 seek="$2" oflag=direct conv=notrunc 2>/dev/null; }
# copies DEV TAG: physical pages that hold marker TAG.
copies() { pagegrep "/sys/kernel/debug/ftlblk/$1/flash" 4096 "MARK-$2-" | wc -l; }
# page_sum DEV LPN [COUNT]: md5 of logical pages.
page_sum() { dd if="/dev/$1" bs=4096 skip="$2" count="${3:-1}" iflag=direct 2>/dev/null | md5sum; }
zero_sum() { dd if=/dev/zero bs=4096 count="${1:-1}" 2>/dev/null | md5sum; }
# map_lpns DEV LO HI: the flash map's lines holding any of logical pages
# LO..HI, as "state:lpn+pages" words.
map_lpns() {
	awk -v lo="$2" -v hi="$3" '$4 != "-" && $4 <= hi && $4 + $2 - 1 >= lo {
		printf "%s:%s+%s ", $3, $4, $2 }' "/sys/kernel/debug/ftlblk/$1/flash_map"
}
# map_states DEV: the states in the flash map, with their page counts.
map_states() {
	awk '{ n[$3] += $2 } END { for (s in n) printf "%s=%d\n", s, n[s] }' \
		"/sys/kernel/debug/ftlblk/$1/flash_map" | sort | tr '\n' ' '
}

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0

# ---- remanence=1: stale data stays until the erase --------------------
D=$(mkdev rm size=8 pages_per_block=16 op_percent=25 remanence=1 secure_erase=1)
ok "device $D (remanence=1, secure_erase=1)" test -b "/dev/$D"
F=/sys/kernel/debug/ftlblk/$D/flash
phys=$(($(st "$D" physical_blocks) * $(st "$D" pages_per_block)))
is "$(stat -c %s "$F")" $((phys * 4096)) "flash image: every physical page ($phys), 4 KiB each"
head -c $((phys * 4096)) /dev/zero | tr '\000' '\377' >/tmp/rm.ff
ok "a new device's image is all 0xff (erased NAND)" cmp -s /tmp/rm.ff "$F"
is "$(map_states "$D")" "erased=$phys " "its map: $phys erased pages"

dd if=/dev/urandom of=/tmp/rm.rnd bs=4096 count=100 2>/dev/null
ok "pages 100..199: random data" dd if=/tmp/rm.rnd of="/dev/$D" bs=4096 seek=100 oflag=direct conv=notrunc
other=$(page_sum "$D" 100 100)
wpage "$D" 5 A
is "$(copies "$D" A)" 1 "marker A at page 5: one physical copy"
is "$(map_lpns "$D" 5 5)" "valid:5+1 " "map: page 5 valid"
wpage "$D" 5 B
is "$(copies "$D" A) $(copies "$D" B)" "1 1" "page 5 overwritten with B: A still in the flash (stale)"
is "$(map_lpns "$D" 5 5 | tr " " "\n" | sort | tr "\n" " ")" "stale:5+1 valid:5+1 " \
	"map: page 5 valid once and stale once"
ok "discard page 5" blkdiscard -f -o 20480 -l 4096 "/dev/$D"
is "$(page_sum "$D" 5)" "$(zero_sum)" "page 5 reads zeroes"
is "$(copies "$D" A) $(copies "$D" B) $(st "$D" pages_stale)" "1 1 2" \
	"discarded: A and B both still in the flash, pages_stale 2"
wpage "$D" 6 C
wpage "$D" 7 D
is "$(blkop zeroout "/dev/$D" 24576 4096) $(blkop punch "/dev/$D" 28672 4096)" "ok ok" \
	"BLKZEROOUT page 6, PUNCH_HOLE page 7"
is "$(copies "$D" C) $(copies "$D" D)" "1 1" "write-zeroes is no erase: C and D still in the flash"
is "$(st "$D" data_bytes)" $((($(st "$D" valid_pages) + $(st "$D" pages_stale)) * 4096)) \
	"data_bytes holds valid and stale pages"

# ---- secure erase ------------------------------------------------------
KEYS="secure_erase_requests secure_erase_blocks secure_erase_pages_left"
snap "$D"
is "$(blkop secdiscard "/dev/$D" 20480 12288)" ok "BLKSECDISCARD pages 5..7"
is "$(copies "$D" A)$(copies "$D" B)$(copies "$D" C)$(copies "$D" D)" 0000 \
	"no copy of A, B, C or D is left in the flash"
is "$(map_lpns "$D" 5 7)" "" "the map shows no page holding logical pages 5..7"
is "$(page_sum "$D" 5 3)" "$(zero_sum 3)" "pages 5..7 read zeroes"
is "$(page_sum "$D" 100 100)" "$other" "pages 100..199 unchanged"
d=$(deltas "$D")
case $d in
"secure_erase_requests=1 secure_erase_blocks="[1-9]*" secure_erase_pages_left=0") pass "counted: $d" ;;
*) fail "counted: $d (expected 1 request, some blocks, 0 left)" ;;
esac

# A partial page: sectors 1..7 of page 20 erased, sector 0 kept.
wpage "$D" 20 E
wpage "$D" 20 E
is "$(copies "$D" E)" 2 "page 20 written twice: two copies of E"
is "$(blkop secdiscard "/dev/$D" $((20 * 4096 + 512)) 3584)" ok "BLKSECDISCARD sectors 1..7 of page 20"
is "$(map_lpns "$D" 20 20)" "valid:20+1 " "page 20: only its new copy is left in the flash"
is "$(dd if="/dev/$D" bs=512 skip=161 count=7 iflag=direct 2>/dev/null | md5sum)" \
	"$(dd if=/dev/zero bs=512 count=7 2>/dev/null | md5sum)" "its sectors 1..7 read zeroes"
is "$(dd if="/dev/$D" bs=512 skip=160 count=1 iflag=direct 2>/dev/null | md5sum)" \
	"$(mark E | head -c 512 | md5sum)" "its sector 0 kept its data"

# The whole device: every block erased.
is "$(blkop secdiscard "/dev/$D" 0 $((8 << 20)))" ok "BLKSECDISCARD of the whole device"
ok "the image is all 0xff again" cmp -s /tmp/rm.ff "$F"
is "$(st "$D" pages_stale) $(st "$D" valid_pages)" "0 0" "no page stale, none valid"

# ---- secure erase with the write cache: durable, a cut cannot undo it --
C=$(mkdev sec size=8 pages_per_block=16 op_percent=25 remanence=1 secure_erase=1 write_cache=1)
wpage "$C" 9 K
is "$(blkop fsync "/dev/$C")" ok "write_cache=1: marker K at page 9, flushed"
wpage "$C" 9 L
is "$(copies "$C" K) $(copies "$C" L) $(st "$C" cached_pages)" "1 0 1" \
	"overwritten with L: L only in the cache, K in the flash"
is "$(blkop secdiscard "/dev/$C" 36864 4096)" ok "BLKSECDISCARD page 9"
is "$(copies "$C" K)$(copies "$C" L) $(st "$C" cached_pages)" "00 0" \
	"no copy of K or L left, in the flash or the cache"
echo 1 >"/sys/block/$C/ftl/power_cut"
echo 0 >"/sys/block/$C/ftl/power_cut"
is "$(page_sum "$C" 9) $(copies "$C" K)" "$(zero_sum) 0" \
	"after a power cut page 9 still reads zeroes, K is still gone"

# ---- timing=1: the request pays its erases -----------------------------
TM=$(mkdev tm size=8 pages_per_block=16 op_percent=25 timing=1 secure_erase=1)
wpage "$TM" 0 X
wpage "$TM" 0 Y
echo 1 >"/sys/block/$TM/ftl/reset_stats"
is "$(blkop secdiscard "/dev/$TM" 0 4096) $(st "$TM" requests_timed)" "ok 1" \
	"timing=1: BLKSECDISCARD of page 0 (two copies in one block), one request timed"
lat=$(st "$TM" latency_ns_total) ebusy=$(st "$TM" erase_busy_ns)
ok "its modeled latency ($lat ns) includes the block's erase (tBERS 2000000 ns; erase die time $ebusy ns)" \
	test "$lat" -ge 2000000 -a "$ebusy" -gt 0

# ---- remanence=0: the data of a superseded page is dropped -------------
D0=$(mkdev r0 size=8 pages_per_block=24 op_percent=25 remanence=0)
wpage "$D0" 3 G
wpage "$D0" 3 H
is "$(copies "$D0" G) $(copies "$D0" H) $(st "$D0" pages_stale)" "0 1 0" \
	"remanence=0: the overwritten copy of page 3 is gone from the image, pages_stale 0"
is "$(map_lpns "$D0" 3 3 | tr " " "\n" | sort | tr "\n" " ")" "dropped:3+1 valid:3+1 " \
	"map: page 3 valid, its old copy dropped"
is "$(blkop secdiscard "/dev/$D0" 0 4096)" EOPNOTSUPP "secure_erase=0: BLKSECDISCARD EOPNOTSUPP"
dd if=/dev/urandom of="/dev/$D0" bs=4096 count=100 seek=10 oflag=direct 2>/dev/null
is "$(awk '{ if (int($1 / 24) != int(($1 + $2 - 1) / 24)) print }' "/sys/kernel/debug/ftlblk/$D0/flash_map")" "" \
	"pages_per_block 24: no run of the map crosses an erase block"
is "$(awk '$3 == "valid" { n += $2 } END { print n }' "/sys/kernel/debug/ftlblk/$D0/flash_map")" \
	"$(st "$D0" valid_pages)" "the map's valid pages are valid_pages"

# ---- mem_limit_mib: stale pages are reclaimed by erasing, not refused ---
M=$(mkdev ml size=16 pages_per_block=16 remanence=1 mem_limit_mib=8)
ok "4 x 4 MiB overwrites at mem_limit_mib=8 with remanence=1" sh -c \
	"for i in 1 2 3 4; do dd if=/dev/urandom of=/dev/$M bs=1M count=4 oflag=direct 2>/dev/null || exit 1; done"
is "$(st "$M" mem_limit_rejections)" 0 "no write refused"
ok "data_bytes within the limit: $(st "$M" data_bytes)" test "$(st "$M" data_bytes)" -le $((8 << 20))
ok "stale pages were erased: $(st "$M" erases) erases" test "$(st "$M" erases)" -gt 0

# ---- write zeroes with unmap (6.17: FALLOC_FL_WRITE_ZEROES) ------------
Q=/sys/block/$D/queue
wpage "$D" 30 W
v=$(st "$D" valid_pages)
if kernel_at_least 6.17; then
	is "$(cat "$Q/write_zeroes_unmap_max_hw_bytes")" "$(cat "$Q/write_zeroes_max_bytes")" \
		"6.17+: write_zeroes_unmap_max_hw_bytes = write_zeroes_max_bytes"
	is "$(blkop write-zeroes "/dev/$D" $((30 * 4096)) 4096)" ok "FALLOC_FL_WRITE_ZEROES page 30"
	is "$(($(st "$D" valid_pages) - v)) $(copies "$D" W)" "-1 1" \
		"page 30 unmapped, its data still in the flash (no erase)"
	echo 0 >"$Q/write_zeroes_unmap_max_bytes"
	is "$(blkop write-zeroes "/dev/$D" 0 4096)" EOPNOTSUPP \
		"write_zeroes_unmap_max_bytes=0: FALLOC_FL_WRITE_ZEROES EOPNOTSUPP"
	W0=$(mkdev wz0 size=8 pages_per_block=16 op_percent=25 discard=0)
	is "$(cat "/sys/block/$W0/queue/write_zeroes_unmap_max_hw_bytes") $(blkop write-zeroes "/dev/$W0" 0 4096)" \
		"0 EOPNOTSUPP" "discard=0: no unmap advertised, FALLOC_FL_WRITE_ZEROES EOPNOTSUPP"
else
	ok "before 6.17: no write_zeroes_unmap_max_hw_bytes" test ! -e "$Q/write_zeroes_unmap_max_hw_bytes"
	is "$(blkop write-zeroes "/dev/$D" $((30 * 4096)) 4096)" EOPNOTSUPP \
		"before 6.17: FALLOC_FL_WRITE_ZEROES EOPNOTSUPP"
	is "$(($(st "$D" valid_pages) - v)) $(copies "$D" W)" "0 1" "page 30 untouched"
fi

check_dmesg
done_testing
