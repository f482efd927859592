#!/bin/sh
# Seed conformance, "mkfs could discard the entire contents of the device"
# (BLKDISCARD): mkfs.ext4 (default -E discard) on a full ftlblk discards
# every logical page, and afterwards only the pages mke2fs wrote hold data:
# valid_pages equals the pages its writes left mapped, replayed from the
# block layer's own block_bio_queue tracepoint. mkfs.ext4 -E nodiscard
# sends no discard. blkdiscard of the whole device unmaps every page.
# See docs/conformance.md.
# shellcheck source=lib.sh
. /tests/lib.sh
# shellcheck source=conform-lib.sh
. /tests/conform-lib.sh
need_module ftlblk
need_cmd mkfs.ext4 e2fsck blkdiscard

plan 21

# Replay the traced bios of DEV (maj,min) in order: writes (W) and
# write-zeroes (N: mke2fs zeroes the journal with fallocate(ZERO_RANGE),
# i.e. REQ_NOUNMAP, which ftlblk must keep allocated, so it programs zero
# pages) map every 4 KiB page they touch,
# discards (D) unmap the pages they cover whole. Prints the pages mapped.
replay_mapped() {
	sed -n "s/.*block_bio_queue: $1 \([A-Z]*\) \([0-9]*\) + \([0-9]*\) .*/\1 \2 \3/p" \
		"$TRACE/trace" | awk '
		$3 == 0 { next }
		$1 ~ /^F?[WN]/ { for (p = int($2 / 8); p <= int(($2 + $3 - 1) / 8); p++) m[p] = 1; next }
		$1 ~ /^D/ { for (p = int(($2 + 7) / 8); p < int(($2 + $3) / 8); p++) delete m[p]; next }
		END { n = 0; for (p in m) n++; print n }'
}

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
cdev_ok "device mk: 64 MiB" mk size=64
D=$CDEV
LP=$(cstat "$D" logical_pages)
MAJMIN=$(sed 's/:/,/' /sys/block/$D/dev)

ok "fill the device" dd if=/dev/zero of="/dev/$D" bs=1M count=64 oflag=direct
is "$(cstat "$D" valid_pages)" "$LP" "every logical page ($LP) holds data"

# --- mkfs.ext4, discarding ---------------------------------------------------------
echo 1 >"/sys/block/$D/ftl/reset_stats"
# record-cmd off while the event is on: see trace_start in conform-lib.sh
record_cmd=$(cat "$TRACE/options/record-cmd")
echo 0 >"$TRACE/options/record-cmd"
echo 0 >"$TRACE/tracing_on"
echo 16384 >"$TRACE/buffer_size_kb"
echo 1 >"$TRACE/events/block/block_bio_queue/enable"
: >"$TRACE/trace"
echo 1 >"$TRACE/tracing_on"
ok "mkfs.ext4 (default: discard)" mkfs.ext4 -q -F -b 4096 "/dev/$D"
echo 0 >"$TRACE/tracing_on"
# mke2fs first probes with a discard of block 0, then discards the whole
# device: page 0 is discarded twice.
sed -n "s/.*block_bio_queue: $MAJMIN D[A-Z]* \([0-9]*\) + \([0-9]*\) .*/\1 \2/p" "$TRACE/trace" >/tmp/disc
diag "mkfs: discard bios: $(tr '\n' ';' </tmp/disc)"
is "$(ranges_merge </tmp/disc)" "0 $((LP * 8))" "mkfs: the discards cover the whole device"
is "$(cstat "$D" discard_sectors) $(cstat "$D" pages_discarded)" \
	"$(awk '{ s += $2; p += int($2 / 8) } END { print s, p }' /tmp/disc)" \
	"mkfs: ftlblk got exactly the traced discard sectors and pages"
is "$(cstat "$D" valid_pages_discarded)" "$LP" "mkfs: all $LP pages held data when discarded"
mapped=$(replay_mapped "$MAJMIN")
valid=$(cstat "$D" valid_pages)
diag "mkfs: $valid valid pages of $LP; ops: $(sed -n "s/.*block_bio_queue: $MAJMIN \([A-Z]*\) .*/\1/p" "$TRACE/trace" | sort | uniq -c | tr '\n' ' ')"
is "$valid" "$mapped" "mkfs: valid_pages = the pages mke2fs's traced writes left mapped"
ok "mkfs: most of the device is unmapped ($valid of $LP pages valid)" test "$valid" -lt $((LP / 4))
is "$(grep -c "block_bio_queue: $MAJMIN D" "$TRACE/trace")" "$(cstat "$D" discard_ranges)" \
	"mkfs: every traced discard bio reached ftlblk as one range"
ok "e2fsck -fn: the new filesystem is consistent" e2fsck -fn "/dev/$D"

# --- mkfs.ext4 -E nodiscard ------------------------------------------------------------
ok "fill the device again" dd if=/dev/zero of="/dev/$D" bs=1M count=64 oflag=direct
echo 1 >"/sys/block/$D/ftl/reset_stats"
ok "mkfs.ext4 -E nodiscard" mkfs.ext4 -q -F -b 4096 -E nodiscard "/dev/$D"
is "$(cstat "$D" discard_requests) $(cstat "$D" pages_discarded)" "0 0" "nodiscard: no discard request at all"
is "$(cstat "$D" valid_pages)" "$LP" "nodiscard: every page still holds data"

# --- blkdiscard: the ioctl on its own ------------------------------------------------
echo 1 >"/sys/block/$D/ftl/reset_stats"
ok "blkdiscard /dev/$D" blkdiscard "/dev/$D"
is "$(cstat "$D" pages_discarded) $(cstat "$D" valid_pages)" "$LP 0" "blkdiscard: every page discarded, none valid"

echo 0 >"$TRACE/events/block/block_bio_queue/enable"
echo "$record_cmd" >"$TRACE/options/record-cmd"
echo 1 >"$TRACE/tracing_on"
ok "remove device mk" cdev_remove mk
ok "rmmod ftlblk" modprobe -r ftlblk
check_dmesg
done_testing
