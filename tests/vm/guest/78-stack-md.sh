#!/bin/sh
# Discard through md (issue 12): RAID0 and RAID1 over two ftlblk devices.
# The expected member ranges come from md's documented layout alone, never
# from what ftlblk reports: each member's data starts at its "Data Offset"
# (mdadm --examine); RAID0 stripes the array in chunks (64 KiB here) over
# the members in their role order (chunk k on member k % 2, at member
# sector DataOffset + (k / 2) * chunk + offset in the chunk); RAID1 puts
# the same array sector on every member at DataOffset + sector. Each
# discard on /dev/mdX must reach each member as exactly those sectors
# (ftlblk_discard tracepoint, merged per disk), pages_discarded and
# valid_pages_discarded count the flash pages they cover whole, the array
# reads back as the reference image with the ranges zeroed, and nothing
# reaches the members' superblock area (below the data offset).
#
# 6.1 specifics pinned here: raid0_handle_discard() sends each member ONE
# discard covering all its chunks of the range (not one per chunk), and a
# member that gets no chunk gets no request; the md queue advertises the
# members' discard granularity (4096, the flash page) and
# discard_max_bytes 4294966784 (UINT_MAX >> 9 sectors). A RAID1 member
# marked faulty receives nothing.
# shellcheck source=lib.sh
. /tests/lib.sh
# shellcheck source=conform-lib.sh
. /tests/conform-lib.sh
need_module ftlblk raid0 raid1
need_cmd mdadm blkdiscard
plan 62

C=128		# chunk: 64 KiB in sectors
KEYS="discard_ranges discard_sectors pages_discarded valid_pages_discarded"

cleanup() {
	for m in md0 md1; do [ -b /dev/$m ] && mdadm --stop /dev/$m >/dev/null 2>&1; done
	[ -n "${A:-}" ] && [ -b "/dev/$A" ] && mdadm --zero-superblock "/dev/$A" >/dev/null 2>&1
	[ -n "${B:-}" ] && [ -b "/dev/$B" ] && mdadm --zero-superblock "/dev/$B" >/dev/null 2>&1
	[ -e "$TRACE/events/ftlblk/ftlblk_discard/enable" ] && trace_stop
	for n in a b; do cdev_remove $n; done
	rm -f /tmp/md.*
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
	modprobe -r raid0 raid1 2>/dev/null
}
trap cleanup EXIT

# doff DEV: the member's data offset in sectors (mdadm --examine).
doff() { mdadm --examine "/dev/$1" | sed -n 's/^ *Data Offset : \([0-9]*\) sectors.*/\1/p'; }
# role DEV: its slot in the array (0 or 1).
role() { mdadm --examine "/dev/$1" | sed -n 's/^ *Device Role : Active device \([0-9]*\).*/\1/p'; }

# bios START COUNT: the discard bios blkdiscard's ioctl submits for array
# sectors [START, +COUNT), "start count" lines: 6.1's __blkdev_issue_discard
# ends the first one at the first discard-granularity (flash page)
# boundary when START is not on one (bio_discard_limit); md's
# discard_max_bytes is larger than these devices.
bios() {
	awk -v s="$1" -v n="$2" -v g=8 'BEGIN {
		a = int((s + g - 1) / g) * g
		if (a > s && a < s + n) { print s, a - s; n -= a - s; s = a }
		print s, n }'
}

# raid0_map < BIOS: the RAID0 pieces of the bios as "slot member_sector
# count bio" lines, one per chunk piece.
raid0_map() {
	awk -v c=$C -v d0="$DO0" -v d1="$DO1" 'BEGIN { off[0] = d0; off[1] = d1 }
		{ s = $1; e = $1 + $2
		  for (k = int(s / c); k * c < e; k++) {
			a = k * c; if (a < s) a = s
			b = (k + 1) * c; if (b > e) b = e
			slot = k % 2
			print slot, off[slot] + int(k / 2) * c + (a - k * c), b - a, NR
		  } }'
}
# nreq SLOT MAPFILE: discard bios the member in SLOT gets: one per bio with
# a piece on it (6.1 raid0_handle_discard sends each member one discard per
# bio, covering all its chunks of that bio).
nreq() { awk -v s="$1" '$1 == s { b[$4] = 1 } END { n = 0; for (i in b) n++; print n }' "$2"; }
# want SLOT MAPFILE: the merged "start end" ranges the member in SLOT gets.
want() { awk -v s="$1" '$1 == s { print $2, $3 }' "$2" | ranges_merge; }
got() { trace_ranges "$1" | ranges_merge; }
cnt() { trace_ranges "$1" | wc -l; }
# expect_deltas SLOT RANGES_FILE NBIOS: the counter deltas of one member for
# the merged "start end" ranges it got as NBIOS bios (discard_ranges: one
# per bio; how many requests they make depends on plug merging): pages_discarded
# counts the flash pages they cover whole (pieces split only at page
# boundaries, so merged or not gives the same pages), valid_pages_discarded
# those not discarded whole before (the arrays were filled with data;
# partly discarded pages keep data in their other sectors). Remembers the
# pages in /tmp/md.done.SLOT.
expect_deltas() {
	awk '{ print $1, $2 - $1 }' "$2" >/tmp/md.sc
	awk '{ f = int(($1 + 7) / 8); l = int(($1 + $2) / 8); for (p = f; p < l; p++) print p }' \
		/tmp/md.sc | sort -u >/tmp/md.pages
	touch "/tmp/md.done.$1"
	_v=$(awk -v done="/tmp/md.done.$1" 'FILENAME == done { d[$1] = 1; next } !($1 in d)' \
		"/tmp/md.done.$1" /tmp/md.pages | wc -l)
	cat /tmp/md.pages >>"/tmp/md.done.$1"
	echo "discard_ranges=$3 discard_sectors=$(awk '{ n += $2 } END { print n + 0 }' /tmp/md.sc) pages_discarded=$(wc -l </tmp/md.pages) valid_pages_discarded=$_v"
}
# zero_ref OFF_SECTORS COUNT: the reference gets the zeroes the array should.
zero_ref() { dd if=/dev/zero of=/tmp/md.ref bs=512 seek="$1" count="$2" conv=notrunc 2>/dev/null; }

# r0_discard DESC START COUNT: blkdiscard array sectors [START, +COUNT) on
# md0; each member got exactly its RAID0 pieces, in one request per bio
# (or none), and counted them.
r0_discard() {
	bios "$2" "$3" | raid0_map >/tmp/md.map
	want 0 /tmp/md.map >/tmp/md.want0
	want 1 /tmp/md.map >/tmp/md.want1
	snap "$M0"
	for _k in $KEYS; do eval "_a_$_k=\$_b_$_k"; done
	snap "$M1"
	trace_start
	ok "raid0 $1: blkdiscard -o $(($2 * 512)) -l $(($3 * 512)) /dev/md0" \
		blkdiscard -f -o $(($2 * 512)) -l $(($3 * 512)) /dev/md0
	is "$(got "$M0") | $(got "$M1")" "$(cat /tmp/md.want0) | $(cat /tmp/md.want1)" \
		"raid0 $1: each member got exactly its chunks at data offset + stripe ($(wc -l </tmp/md.map) chunk pieces)"
	diag "raid0 $1: traced $M0: $(trace_ranges "$M0" | tr '\n' ' ')| $M1: $(trace_ranges "$M1" | tr '\n' ' ')"
	_n0=$(nreq 0 /tmp/md.map) _n1=$(nreq 1 /tmp/md.map)
	is "$(cnt "$M0") $(cnt "$M1")" "$_n0 $_n1" \
		"raid0 $1: $_n0 and $_n1 discards: one per member per bio with a piece on it"
	_d1=$(deltas "$M1")
	for _k in $KEYS; do eval "_b_$_k=\$_a_$_k"; done
	is "$(deltas "$M0") | $_d1" "$(expect_deltas 0 /tmp/md.want0 "$_n0") | $(expect_deltas 1 /tmp/md.want1 "$_n1")" \
		"raid0 $1: counters of both members"
	zero_ref "$2" "$3"
}

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
cdev_ok "device a: 16 MiB" a size=16 pages_per_block=64
A=$CDEV
cdev_ok "device b: 16 MiB" b size=16 pages_per_block=64
B=$CDEV
SZ=$(cat "/sys/block/$A/size")
trace_start

# ---- RAID0 ------------------------------------------------------------------
ok "mdadm --create md0 raid0, 2 members, chunk 64 KiB" \
	mdadm --create /dev/md0 --run --metadata=1.2 --level=0 --raid-devices=2 --chunk=64 "/dev/$A" "/dev/$B"
is "$(cnt "$A") $(cnt "$B")" "0 0" "raid0: creating the array discards nothing"
is "$(mdadm --examine "/dev/$A" | sed -n 's/^ *Chunk Size : //p')" 64K "raid0: chunk size 64K (mdadm --examine)"
# Members in slot order.
if [ "$(role "$A")" = 0 ]; then M0=$A M1=$B; else M0=$B M1=$A; fi
DO0=$(doff "$M0") DO1=$(doff "$M1")
is "$(role "$M0") $(role "$M1")" "0 1" "raid0: the members hold slots 0 and 1"
ok "raid0: data offsets known ($DO0, $DO1 sectors)" test -n "$DO0" -a -n "$DO1"
per=$(( (SZ - DO0) / C * C ))
[ $(( (SZ - DO1) / C * C )) -lt $per ] && per=$(( (SZ - DO1) / C * C ))
is "$(cat /sys/block/md0/size)" $((2 * per)) "raid0: md0 holds 2 x (member size - data offset), whole chunks"
dmb=$(sysfs_read /sys/block/md0/queue/discard_max_bytes)
ok "raid0: md0 advertises discard (discard_max_bytes $dmb)" test "$dmb" -gt 0
is "$(sysfs_read /sys/block/md0/queue/discard_granularity)" \
	"$(sysfs_read "/sys/block/$A/queue/discard_granularity")" \
	"raid0: md0 discard_granularity = the members' (flash page, 4096)"
N=$(cat /sys/block/md0/size)
ok "fill md0 with random data" sh -c \
	"dd if=/dev/urandom of=/tmp/md.ref bs=512 count=$N 2>/dev/null && dd if=/tmp/md.ref of=/dev/md0 bs=1M oflag=direct 2>/dev/null"

# 100 KiB + 300 KiB: chunks 1..6, starting and ending inside a chunk.
r0_discard "mid-chunk 300 KiB" 200 600
# Whole stripes: 1 MiB at 1 MiB on the array, 512 KiB on each member.
r0_discard "3 MiB of whole stripes" 2048 6144
# Odd sectors: a partial flash page at both ends on both members.
r0_discard "odd sectors over 5 chunks" $((10240 + 3)) $((5 * C + 7))
# Inside one chunk: only that chunk's member hears of it.
r0_discard "inside chunk 9 (slot 1)" $((9 * C + 16)) 32
ok "raid0: md0 equals the reference with the ranges zeroed" cmp /dev/md0 /tmp/md.ref
# The whole array: each member from its data offset to the end of its
# last chunk, never the superblock area below.
r0_discard "the whole array" 0 "$N"
is "$(trace_ranges "$M0" | head -n 1) | $(trace_ranges "$M1" | head -n 1)" "$DO0 $((N / 2)) | $DO1 $((N / 2))" \
	"raid0 the whole array: each member from its data offset on, its superblock area untouched"
is "$(dd if=/dev/md0 bs=1M iflag=direct 2>/dev/null | tr -d '\000' | wc -c)" 0 "raid0: md0 reads as zeroes"
ok "raid0: mdadm --examine still finds both superblocks" sh -c \
	"mdadm --examine /dev/$A >/dev/null && mdadm --examine /dev/$B >/dev/null"
ok "mdadm --stop md0" mdadm --stop /dev/md0
ok "mdadm --zero-superblock" mdadm --zero-superblock "/dev/$A" "/dev/$B"
rm -f /tmp/md.done.*

# ---- RAID1 ------------------------------------------------------------------
trace_start
ok "mdadm --create md1 raid1 --assume-clean" \
	mdadm --create /dev/md1 --run --metadata=1.2 --level=1 --raid-devices=2 --assume-clean "/dev/$A" "/dev/$B"
is "$(cnt "$A") $(cnt "$B")" "0 0" "raid1: creating the array discards nothing"
DA=$(doff "$A") DB=$(doff "$B")
ok "raid1: data offsets known ($DA, $DB sectors)" test -n "$DA" -a -n "$DB"
N=$(cat /sys/block/md1/size)
ok "raid1: md1 fits in the members after the data offset ($N sectors)" \
	test "$N" -gt 0 -a $((N + DA)) -le "$SZ" -a $((N + DB)) -le "$SZ"
dmb=$(sysfs_read /sys/block/md1/queue/discard_max_bytes)
ok "raid1: md1 advertises discard (discard_max_bytes $dmb)" test "$dmb" -gt 0
is "$(sysfs_read /sys/block/md1/queue/discard_granularity)" \
	"$(sysfs_read "/sys/block/$A/queue/discard_granularity")" \
	"raid1: md1 discard_granularity = the members' (flash page, 4096)"
ok "fill md1 with random data" sh -c \
	"dd if=/dev/urandom of=/tmp/md.ref bs=512 count=$N 2>/dev/null && dd if=/tmp/md.ref of=/dev/md1 bs=1M oflag=direct 2>/dev/null"

# r1_discard DESC START COUNT: both members got the bios' sectors at
# data offset + array sector, one request per bio, and counted them.
r1_discard() {
	bios "$2" "$3" >/tmp/md.bios
	_nb=$(wc -l </tmp/md.bios | tr -d ' ')
	echo "$(($2 + DA)) $3" | ranges_merge >/tmp/md.wantA
	echo "$(($2 + DB)) $3" | ranges_merge >/tmp/md.wantB
	snap "$A"
	for _k in $KEYS; do eval "_a_$_k=\$_b_$_k"; done
	snap "$B"
	trace_start
	ok "raid1 $1: blkdiscard -o $(($2 * 512)) -l $(($3 * 512)) /dev/md1" \
		blkdiscard -f -o $(($2 * 512)) -l $(($3 * 512)) /dev/md1
	is "$(trace_ranges "$A" | tr '\n' ' ')| $(trace_ranges "$B" | tr '\n' ' ')" \
		"$(awk -v d="$DA" '{ printf "%d %d ", $1 + d, $2 }' /tmp/md.bios)| $(awk -v d="$DB" '{ printf "%d %d ", $1 + d, $2 }' /tmp/md.bios)" \
		"raid1 $1: each member got exactly data offset + [$2, +$3), as the $_nb bio(s)"
	diag "raid1 $1: traced $A: $(trace_ranges "$A" | tr '\n' ' ')| $B: $(trace_ranges "$B" | tr '\n' ' ')"
	_d1=$(deltas "$B")
	for _k in $KEYS; do eval "_b_$_k=\$_a_$_k"; done
	is "$(deltas "$A") | $_d1" "$(expect_deltas A /tmp/md.wantA "$_nb") | $(expect_deltas B /tmp/md.wantB "$_nb")" \
		"raid1 $1: counters of both members"
	zero_ref "$2" "$3"
}
# member_is_ref DEV DOFF: the member's data area equals the reference.
# A discard md sends a member does not invalidate the member's own page
# cache, and busybox dd with bs=512 silently reads through it even with
# iflag=direct (its unaligned O_DIRECT read fails with EINVAL and it
# retries buffered; measured: stale data with bs=512, fresh with bs=4096):
# drop the cache first.
member_is_ref() {
	blockdev --flushbufs "/dev/$1" &&
	dd if="/dev/$1" bs=512 skip="$2" count="$N" 2>/dev/null | cmp - /tmp/md.ref
}

r1_discard "unaligned 300 KiB" 201 600
r1_discard "2 MiB" 4096 4096
ok "raid1: md1 equals the reference with the ranges zeroed" cmp /dev/md1 /tmp/md.ref
ok "raid1: member $A's data area equals it too" member_is_ref "$A" "$DA"
ok "raid1: member $B's data area equals it too" member_is_ref "$B" "$DB"

# A faulty member is out of the array: the discard reaches only the other.
ok "mdadm --fail $B" mdadm /dev/md1 --fail "/dev/$B"
trace_start
ok "raid1 degraded: blkdiscard 64 KiB at 8 MiB" blkdiscard -f -o $((8 << 20)) -l $((64 << 10)) /dev/md1
is "$(trace_ranges "$A" | tr '\n' ' ')| $(cnt "$B")" "$((16384 + DA)) 128 | 0" \
	"raid1 degraded: the active member got exactly its range, the faulty one nothing"
ok "mdadm --stop md1" mdadm --stop /dev/md1
ok "mdadm --zero-superblock" mdadm --zero-superblock "/dev/$A" "/dev/$B"

trace_stop
ok "remove devices a and b" sh -c ". /tests/conform-lib.sh && cdev_remove a && cdev_remove b"
ok "modprobe -r ftlblk" modprobe -r ftlblk
check_dmesg
done_testing
