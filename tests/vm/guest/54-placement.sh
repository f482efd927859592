#!/bin/sh
# Data placement: with placement=hint each write lifetime hint writes into
# its own open erase block (Linux 6.9+: bios carry the hint again), with
# placement=stream each write stream (Linux 6.16+: max_write_streams,
# io_uring's write_stream), so data that dies together is erased together.
#  - bad values (a name that is no placement, write_streams out of range or
#    without placement=stream) fail with EINVAL and one line;
#  - a kernel without the interface refuses the placement at power-on,
#    naming the version that has it (hints: 6.1; streams: 6.1 and 6.12);
#  - hints: two device nodes of one device, hint SHORT and EXTREME,
#    writing in turns 8 pages at a time: class_stats counts each hint's
#    pages and filled blocks, and no erase block of the flash map holds
#    pages of both (the control, placement=none, mixes them: the check can
#    fail); with the write cache the write-back keeps each page's class;
#  - streams (7.x): the queue advertises max_write_streams and one erase
#    block as write_stream_granularity, streams 1 and 3 land in blocks of
#    their own, a stream beyond the limit is refused with EINVAL.
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
need_cmd hintwrite ftlsim
if kernel_at_least 6.16; then
	need_cmd uring-stream
	plan 27
elif kernel_at_least 6.9; then
	plan 21
else
	plan 11
fi

cleanup() {
	rm -f /dev/pl-a /dev/pl-b /tmp/pl.ftlblk /tmp/pl.json
	for n in bad pl0 pl1 pl2 pl3 pl4; do
		[ -d "$CFS/$n" ] && rmdir "$CFS/$n"
	done
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

# classes DEV: class_stats without the classes that wrote nothing.
classes() { awk '$2 || $3 { printf "%s:%s:%s ", $1, $2, $3 }' "/sys/block/$1/ftl/class_stats"; }
# mixed DEV SPLIT PPB: erase blocks holding logical pages both below and
# at or above SPLIT (from the flash map's valid runs).
mixed() {
	awk -v s="$2" -v ppb="$3" '$3 == "valid" {
		for (i = 0; i < $2; i++) {
			b = int(($1 + i) / ppb)
			if ($4 + i < s) lo[b] = 1; else hi[b] = 1
		}
	} END { n = 0; for (b in lo) if (b in hi) n++; print n }' \
		"/sys/kernel/debug/ftlblk/$1/flash_map"
}
# nodes DEV: two device nodes of DEV, /dev/pl-a and /dev/pl-b (a hint
# belongs to the inode).
nodes() {
	rm -f /dev/pl-a /dev/pl-b
	mm=$(cat "/sys/block/$1/dev")
	mknod /dev/pl-a b "${mm%%:*}" "${mm##*:}" &&
		mknod /dev/pl-b b "${mm%%:*}" "${mm##*:}"
}
# turns: hint SHORT (2) on pages 0..63 and EXTREME (5) on 512..575, in
# turns of 8 pages, through /dev/pl-a and /dev/pl-b.
turns() {
	for i in 0 1 2 3 4 5 6 7; do
		hintwrite /dev/pl-a 2 $((i * 8)) 8 $((i + 1)) >/dev/null &&
			hintwrite /dev/pl-b 5 $((512 + i * 8)) 8 $((i + 101)) >/dev/null ||
			return 1
	done
}

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
mkdir "$CFS/bad"
is "$(echo bogus 2>/dev/null > "$CFS/bad/placement" && echo accepted)$(dmesg | grep -c "invalid placement 'bogus': allowed none, hint")" \
	"1" "placement=bogus: refused, one line naming the allowed values"
is "$(echo 17 2>/dev/null > "$CFS/bad/write_streams" && echo accepted)$(cat "$CFS/bad/write_streams")" \
	"0" "write_streams=17: refused, unchanged"
rmdir "$CFS/bad"
is "$(power_fails pl0 size=8 pages_per_block=16 write_streams=2 | tr '\n' '|')" \
	"refused|invalid write_streams 2: allowed 1..16 with placement=stream, 0 otherwise|" \
	"write_streams without placement=stream: no power-on"
is "$(power_fails pl0 size=8 pages_per_block=16 placement=stream | tr '\n' '|' | sed 's/invalid placement stream[^|]*/P/')" \
	"refused|$(kernel_at_least 6.16 && echo 'invalid write_streams 0: allowed 1..16 with placement=stream, 0 otherwise' || echo P)|" \
	"placement=stream without write_streams: no power-on"

if ! kernel_at_least 6.9; then
	is "$(power_fails pl0 size=8 pages_per_block=16 placement=hint | tr '\n' '|')" \
		"refused|invalid placement hint: allowed none on this kernel (bios carry write hints from Linux 6.9)|" \
		"6.1: placement=hint refused, naming 6.9 (no write hints in bios before)"
fi
if ! kernel_at_least 6.16; then
	is "$(power_fails pl0 size=8 pages_per_block=16 placement=stream write_streams=2 | tr '\n' '|')" \
		"refused|invalid placement stream: allowed $(kernel_at_least 6.9 && echo 'none or hint' || echo none) on this kernel (write streams from Linux 6.16)|" \
		"before 6.16: placement=stream refused, naming 6.16"
fi
D=$(mkdev pl1 size=8 pages_per_block=16 op_percent=20)
is "$(cat /sys/block/"$D"/ftl/placement) $(wc -l < /sys/block/"$D"/ftl/class_stats)" \
	"none 1" "placement=none: sysfs says none, one class"
nodes "$D"
ok "control, placement=none: SHORT and EXTREME pages in turns" turns
ok "control: blocks hold pages of both hints ($(mixed "$D" 512 16))" \
	test "$(mixed "$D" 512 16)" -gt 0
echo 0 > "$CFS/pl1/power"
check_dmesg
kernel_at_least 6.9 || { done_testing; exit 0; }

# ---- hints ---------------------------------------------------------------
D=$(mkdev pl2 size=8 pages_per_block=16 op_percent=20 placement=hint)
is "$(cat /sys/block/"$D"/ftl/placement) $(wc -l < /sys/block/"$D"/ftl/class_stats)" \
	"hint 6" "placement=hint: sysfs says hint, 6 classes (RWH_WRITE_LIFE_NOT_SET .. EXTREME)"
nodes "$D"
echo 1 > "/sys/block/$D/ftl/reset_stats"	# the partition scan's reads
TR=/sys/kernel/tracing
: > $TR/trace
echo 1 > $TR/events/ftlblk/ftlblk_request/enable
ok "SHORT on /dev/pl-a, EXTREME on /dev/pl-b, in turns of 8 pages" turns
echo 0 > $TR/events/ftlblk/ftlblk_request/enable
sed -n 's/.*ftlblk_request: //p' $TR/trace > /tmp/pl.ftlblk
is "$(classes "$D")" "2:64:3 5:64:3 " \
	"class_stats: 64 pages and 3 filled blocks for each hint (the 4th block still open)"
is "$(mixed "$D" 512 16)" 0 "no erase block holds pages of both hints"
# The device's trace carries each write's class: ftlsim with 6 classes
# replays it to the module's counters.
ok "ftlsim --trace-format ftlblk --placement-classes 6 on the device's trace" sh -c \
	"ftlsim --size 8M --pages-per-block 16 --op-percent 20 --placement-classes 6 --trace /tmp/pl.ftlblk --trace-format ftlblk --json > /tmp/pl.json"
sim=$(sed -n 's/^  "\(host_pages_written\|nand_pages_written\|class_pages_written\|class_blocks_filled\)": \(.*\),$/\1=\2/p' /tmp/pl.json | tr -d ' ' | tr '\n' ' ')
# column N of class_stats as ftlsim's JSON array: [a,b,...]
column() { awk -v c="$1" '{ printf "%s%s", (NR > 1 ? "," : ""), $c }' "/sys/block/$D/ftl/class_stats"; }
mod="host_pages_written=$(st "$D" host_pages_written) nand_pages_written=$(st "$D" nand_pages_written) class_pages_written=[$(column 2)] class_blocks_filled=[$(column 3)]"
# words: the words of $1 sorted, on one line
words() { printf '%s' "$1" | tr ' ' '\n' | grep . | sort | tr '\n' ' '; }
is "$(words "$sim")" "$(words "$mod")" \
	"ftlsim = module: $mod"
# byte0 DEV PAGE: the first byte of a page
byte0() { dd if="/dev/$1" bs=4096 skip="$2" count=1 iflag=direct 2>/dev/null | od -An -tu1 -N1 | tr -d ' '; }
is "$(byte0 "$D" 56) $(byte0 "$D" 568)" "8 108" "the last turn's data reads back"
echo 0 > "$CFS/pl2/power"
D=$(mkdev pl3 size=8 pages_per_block=16 op_percent=20 placement=hint write_cache=1)
nodes "$D"
ok "write_cache=1: the same writes, cached" turns
ok "a flush writes them back" blkop fsync "/dev/$D"
is "$(classes "$D")| $(mixed "$D" 512 16)" "2:64:3 5:64:3 | 0" \
	"the write-back kept each page's hint: same counts, no block mixed"
echo 0 > "$CFS/pl3/power"
check_dmesg "no kernel errors in dmesg (hints)"
kernel_at_least 6.16 || { done_testing; exit 0; }

# ---- streams (6.16+) -----------------------------------------------------
D=$(mkdev pl4 size=8 pages_per_block=16 op_percent=20 placement=stream write_streams=4)
is "$(cat /sys/block/"$D"/queue/max_write_streams) $(cat /sys/block/"$D"/queue/write_stream_granularity)" \
	"4 65536" "the queue advertises 4 write streams of one erase block (16 x 4 KiB)"
is "$(wc -l < /sys/block/"$D"/ftl/class_stats)" 5 "5 classes: no stream, streams 1..4"
stream_turns() {
	for i in 0 1 2 3 4 5 6 7; do
		uring-stream "/dev/$D" 1 $((i * 8)) 8 $((i + 1)) >/dev/null &&
			uring-stream "/dev/$D" 3 $((512 + i * 8)) 8 $((i + 101)) >/dev/null ||
			return 1
	done
}
ok "streams 1 and 3 through io_uring, in turns of 8 pages" stream_turns
is "$(classes "$D")" "1:64:3 3:64:3 " "class_stats: 64 pages and 3 filled blocks for each stream"
is "$(mixed "$D" 512 16)" 0 "no erase block holds pages of both streams"
is "$(uring-stream "/dev/$D" 5 0 1 7)" "EINVAL" "stream 5 of 4: EINVAL from the block layer"
echo 0 > "$CFS/pl4/power"
check_dmesg "no kernel errors in dmesg (streams)"
done_testing
