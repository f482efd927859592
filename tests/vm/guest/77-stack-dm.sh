#!/bin/sh
# Discard through the storage stack, device-mapper rows (issue 12): ftlblk
# at the bottom, one dm layer above it, and the discards that reach ftlblk
# compared with what the layer's documented mapping says must arrive. The
# expectations come from the tables this test creates (dm-linear offset,
# LUKS2 data offset read from dmsetup/cryptsetup, thin-pool block size and
# allocation order), never from ftlblk's counters; the ftlblk_discard
# tracepoint shows what arrived, the counters and a read-back of the whole
# device show that nothing else was touched.
#
#   dm-linear at an odd offset: every range arrives shifted by exactly the
#     offset, as one range, sub-page ones too; the rest of ftlblk keeps its
#     data; a discard past the end of the target is refused.
#   dm-crypt (LUKS2): opened --allow-discards, ext4 -o discard deleting a
#     file: ftlblk receives exactly the ranges ext4 issued (ext4's own
#     ext4_discard_blocks tracepoint) plus the LUKS data offset, covering
#     every block of the file (debugfs, before the rm), which reads back as
#     zeroes, and valid_pages drops by exactly the file's blocks. Opened
#     without it (the default): ext4 still issues the discards for a deleted
#     file, they end at dm-crypt (EOPNOTSUPP, ignored by ext4) and nothing
#     reaches ftlblk, the silent loss; fstrim fails. Reopened with
#     --allow-discards, an fstrim recovers the lost discards.
#   dm-thin (dmsetup, fresh pool, 64 KiB blocks): discarding whole thin
#     blocks frees them in the pool and, with passdown (the default),
#     discards exactly the matching data-device blocks; partly covered
#     blocks are neither freed nor passed down (and keep their data); with
#     no_discard_passdown the pool frees the blocks but nothing reaches
#     ftlblk.
# shellcheck source=lib.sh
. /tests/lib.sh
# shellcheck source=conform-lib.sh
. /tests/conform-lib.sh
need_module ftlblk dm-mod dm-crypt dm-thin-pool
need_cmd dmsetup cryptsetup blkdiscard blkop mkfs.ext4 debugfs e2fsck fstrim blockdev

plan 103

MNT=/mnt/s77
KEY=/tmp/s77.key
EXT4EV=$TRACE/events/ext4/ext4_discard_blocks

cleanup() {
	grep -q " $MNT " /proc/mounts && umount $MNT
	for m in s77thin s77pool s77lin; do
		dmsetup info $m >/dev/null 2>&1 && dmsetup remove $m
	done
	dmsetup info s77cr >/dev/null 2>&1 && cryptsetup close s77cr
	[ -e $EXT4EV/enable ] && [ "$(cat $EXT4EV/enable)" = 1 ] && echo 0 >$EXT4EV/enable
	[ -e "$TRACE/events/ftlblk/ftlblk_discard/enable" ] && trace_stop
	for n in lin cr tmeta tdata; do cdev_remove $n; done
	rm -f $KEY /tmp/s77.*
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
	modprobe -r dm-thin-pool dm-crypt 2>/dev/null
	return 0
}
trap cleanup EXIT

# dm_create NAME TABLE: a dm device, with its /dev/mapper node (no udev).
dm_create() { dmsetup create "$1" --table "$2" && dmsetup mknodes "$1"; }
# dm_q NAME ATTR: a queue limit of dm device NAME.
dm_q() { sysfs_read "/sys/block/dm-$(dmsetup info -c --noheadings -o minor "$1" | tr -d ' ')/queue/$2"; }
# traced DEV: the ranges DEV received since trace_start, as received.
traced() { trace_ranges "$1" | tr '\n' ' ' | sed 's/ $//'; }
# delta_of DEV KEY...: "key=delta ..." since snap (lib.sh) for these keys.
delta_of() { _dd=$1; shift; _dk=$KEYS; KEYS=$*; deltas "$_dd"; KEYS=$_dk; }
# zero_ref FILE SECTOR COUNT: the reference image gets the expected zeroes.
zero_ref() { dd if=/dev/zero of="$1" bs=512 seek="$2" count="$3" conv=notrunc 2>/dev/null; }
# span FILE OFF LEN: LEN bytes at OFF (multiples of 4096) of FILE, a device
# read with O_DIRECT: never through its page cache, which the discards sent
# by the layers above do not invalidate. Measured: busybox dd bs=512
# iflag=direct reads stale data from that cache (its buffer is not aligned
# for O_DIRECT and it falls back to a buffered read); bs=4096 and up is
# direct.
span() {
	[ $(($2 % 4096)) = 0 ] && [ $(($3 % 4096)) = 0 ] || { echo "span: $2 $3 not 4 KiB aligned" >&2; return 1; }
	_bs=4096
	[ $(($2 % 65536)) = 0 ] && [ $(($3 % 65536)) = 0 ] && _bs=65536
	case $1 in
	/dev/*) dd if="$1" bs=$_bs skip=$(($2 / _bs)) count=$(($3 / _bs)) iflag=direct 2>/dev/null ;;
	*) dd if="$1" bs=$_bs skip=$(($2 / _bs)) count=$(($3 / _bs)) 2>/dev/null ;;
	esac
}
# nonzero_in DEV FILE: non-zero bytes of DEV in the merged "start end"
# sector ranges of FILE (whole flash pages), read with O_DIRECT.
nonzero_in() {
	while read -r _a _e; do
		span "$1" $((_a * 512)) $(((_e - _a) * 512)) || echo x
	done <"$2" | tr -d '\000' | wc -c
}
# same A B OFF LEN: LEN bytes at OFF of A and B are equal (B, a reference
# file, always has them; md5sum: busybox cmp is slower under TCG).
same() { [ "$(span "$1" "$3" "$4" | md5sum)" = "$(span "$2" "$3" "$4" | md5sum)" ]; }
# zeroes DEV OFF LEN: those bytes are all zero.
zeroes() { [ "$(span "$1" "$2" "$3" | tr -d '\000' | wc -c)" = 0 ]; }
# missing A B: the sectors of merged ranges A not in merged ranges B.
# (conform-lib's ranges_sub prints nothing when B is empty: its awk reads
# A as B then, NR == FNR.)
missing() { if [ -s "$2" ]; then ranges_sub "$1" "$2"; else cat "$1"; fi; }
# pages_in SECTOR COUNT: flash pages (8 sectors) the range covers whole.
pages_in() { echo "$1 $2" | pages_covered; }

KEYS="discard_sectors pages_discarded sectors_zeroed valid_pages"
# lap WHAT: diag line with the seconds since the last lap.
T_LAP=$(cut -d' ' -f1 /proc/uptime)
lap() {
	_t=$(cut -d' ' -f1 /proc/uptime)
	diag "$1 took $(echo "$_t $T_LAP" | awk '{ printf "%.1f", $1 - $2 }') s"
	T_LAP=$_t
}

ok "modprobe ftlblk nr_devices=0, dm-crypt, dm-thin-pool" \
	sh -c 'modprobe ftlblk nr_devices=0 && modprobe dm-crypt && modprobe dm-thin-pool'
trace_start

# ==== dm-linear ==================================================================
# 8 MiB ftlblk (16384 sectors); the target maps 8192 sectors (4 MiB) at
# offset 2056: page-aligned (257 pages) but on no erase-block (256
# sectors) or MiB boundary. The sectors below and above it must never be
# touched.
cdev_ok "device lin: 8 MiB, 4 KiB pages, 32 pages per block" lin size=8 pages_per_block=32
L=$CDEV
LSZ=16384 LOFF=2056 LLEN=8192
# 8 MiB of random data, for this device and the thin volume (urandom is
# slow under TCG: 1.2 s for 16 MiB).
dd if=/dev/urandom of=/tmp/s77.rnd bs=1M count=8 2>/dev/null
cp /tmp/s77.rnd /tmp/s77.lref
ok "fill $L with random data" dd if=/tmp/s77.lref of=/dev/$L bs=1M oflag=direct
ok "dmsetup create s77lin: linear $L at $LOFF, $LLEN sectors" \
	dm_create s77lin "0 $LLEN linear /dev/$L $LOFF"
is "$(dmsetup table s77lin | awk '{ print $1, $2, $3, $5 }')" "0 $LLEN linear $LOFF" \
	"dmsetup table shows the mapping as created"
diag "s77lin: discard_granularity $(dm_q s77lin discard_granularity), discard_max_bytes $(dm_q s77lin discard_max_bytes)"

# lin_discard DESC OFF LEN: blkdiscard LEN bytes at OFF of the dm device;
# ftlblk must receive the one range OFF/512 + LOFF, LEN/512 (as one
# range), count its sectors and whole pages, zero partial pages' sectors,
# and equal the reference image with exactly that range zeroed.
lin_discard() {
	l_s=$(($2 / 512 + LOFF)) l_n=$(($3 / 512))
	l_p=$(pages_in $l_s $l_n)
	l_z=$((l_n - l_p * 8))
	snap "$L"
	trace_start
	ok "linear $1: blkdiscard -o $2 -l $3" blkdiscard -f -o "$2" -l "$3" /dev/mapper/s77lin
	is "$(traced "$L")" "$l_s $l_n" "linear $1: ftlblk received sector $l_s, $l_n sectors (offset + $LOFF)"
	is "$(delta_of "$L" discard_sectors pages_discarded sectors_zeroed)" \
		"discard_sectors=$l_n pages_discarded=$l_p sectors_zeroed=$l_z" \
		"linear $1: $l_n sectors, $l_p whole pages, $l_z sectors zeroed"
	zero_ref /tmp/s77.lref $l_s $l_n
	ok "linear $1: all of $L equals the reference with just that range zeroed" \
		same /dev/$L /tmp/s77.lref 0 $((LSZ * 512))
}
lin_discard "1 MiB at 4 KiB" 4096 1048576
lin_discard "3 KiB inside a page" $((5 * 4096 + 1024)) 3072
lin_discard "the last 64 KiB of the target" $((LLEN * 512 - 65536)) 65536
snap "$L"
trace_start
is "$(blkop discard /dev/mapper/s77lin $((LLEN * 512 - 4096)) 8192)" EINVAL \
	"linear: BLKDISCARD crossing the end of the target: EINVAL"
is "$(traced "$L")/$(delta_of "$L" discard_sectors)" "/discard_sectors=0" \
	"linear: the refused discard reached nothing"
lin_discard "the whole target" 0 $((LLEN * 512))
lin_outside() {
	same /dev/$L /tmp/s77.lref 0 $((LOFF * 512)) &&
	same /dev/$L /tmp/s77.lref $(((LOFF + LLEN) * 512)) $(((LSZ - LOFF - LLEN) * 512)) &&
	[ "$(span /tmp/s77.lref 0 $((LOFF * 512)) | tr -d '\000' | wc -c)" -gt 0 ]
}
ok "linear: the sectors below $LOFF and from $((LOFF + LLEN)) on still hold their random data" lin_outside
ok "dmsetup remove s77lin" dmsetup remove s77lin
rm -f /tmp/s77.lref
lap dm-linear

# ==== dm-crypt (LUKS2) ===========================================================
cdev_ok "device cr: 64 MiB" cr size=64 pages_per_block=64
C=$CDEV
head -c 64 /dev/urandom >$KEY
ok "cryptsetup luksFormat LUKS2 (pbkdf2, 1000 iterations)" \
	cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 --key-file $KEY /dev/$C
ok "cryptsetup open --allow-discards" sh -c \
	"cryptsetup open --allow-discards --key-file $KEY /dev/$C s77cr && dmsetup mknodes s77cr"
# The data offset, in 512-byte sectors, from the live table ("start len
# crypt cipher key iv_offset device offset #opts opts...") and from
# cryptsetup; both must agree.
COFF=$(dmsetup table s77cr | awk '{ print $8 }')
CLEN=$(dmsetup table s77cr | awk '{ print $2 }')
is "$(cryptsetup status s77cr | sed -n 's/^ *offset: *\([0-9]*\) sectors.*/\1/p')" "$COFF" \
	"LUKS data offset: dmsetup table and cryptsetup status agree ($COFF sectors)"
ok "the data offset is whole flash pages, the data area ends at the device's end" \
	test $((COFF % 8)) = 0 -a $((COFF + CLEN)) = "$(blockdev --getsz /dev/$C)"
ok "table has allow_discards, the crypt device advertises discard" sh -c \
	"dmsetup table s77cr | grep -qw allow_discards && [ $(dm_q s77cr discard_max_bytes) -gt 0 ]"
diag "s77cr: $(dmsetup table s77cr | sed 's/:[0-9]*:logon:[^ ]*/<key>/'); discard_granularity $(dm_q s77cr discard_granularity)"
CMM=$(dmsetup info -c --noheadings -o major,minor s77cr | tr -d ' ' | tr : ,)

# ext4 block size 4096 = the flash page; block b is ftlblk sector COFF + 8b.
ok "mkfs.ext4 -b 4096 (no discard, no lazy init)" \
	mkfs.ext4 -q -F -b 4096 -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 /dev/mapper/s77cr
mkdir -p $MNT
ok "mount -o discard" mount -t ext4 -o discard /dev/mapper/s77cr $MNT
# Free space that mke2fs wrote (its zeroes are ciphertext on ftlblk) is
# unmapped by a first fstrim: from here ftlblk holds data exactly where
# ext4 has blocks in use.
ok "fstrim the fresh filesystem (through dm-crypt)" fstrim $MNT
# A and B interleaved with a kept file K, so they are fragmented and have
# blocks in use next to them.
r=0
while [ $r -lt 4 ]; do
	head -c $((64 << 10)) /dev/urandom >>$MNT/A
	head -c $((48 << 10)) /dev/urandom >>$MNT/B
	head -c $((16 << 10)) /dev/urandom >>$MNT/K
	sync
	r=$((r + 1))
done
sum_k=$(md5sum <$MNT/K)
ok "umount" umount $MNT

# ftl_sectors_of FILE: merged ftlblk sector ranges ("start end") of FILE's
# blocks (data and extent tree) inside the crypt device, from debugfs.
ftl_sectors_of() {
	debugfs -R "stat /$1" /dev/mapper/s77cr 2>/dev/null |
		sed -n '/^EXTENTS:/,$p' | tr ',' '\n' |
		sed -n 's/.*):\([0-9]*\)\(-\([0-9]*\)\)\{0,1\}.*/\1 \3/p' |
		awk -v off="$COFF" '{ e = $2 == "" ? $1 : $2; print off + $1 * 8, (e - $1 + 1) * 8 }' |
		ranges_merge
}
ftl_sectors_of A >/tmp/s77.a
ftl_sectors_of B >/tmp/s77.b
ftl_sectors_of K >/tmp/s77.k
NA=$(awk '{ n += ($2 - $1) / 8 } END { print n + 0 }' /tmp/s77.a)
NB=$(awk '{ n += ($2 - $1) / 8 } END { print n + 0 }' /tmp/s77.b)
diag "A: $NA blocks in $(wc -l </tmp/s77.a) runs, B: $NB blocks in $(wc -l </tmp/s77.b) runs (ftlblk sectors: A $(tr '\n' ' ' </tmp/s77.a))"
ok "A and B have 64 and 48 blocks, both fragmented" \
	test "$NA" = 64 -a "$NB" = 48 -a "$(wc -l </tmp/s77.a)" -ge 2 -a "$(wc -l </tmp/s77.b)" -ge 2
isnt "$(nonzero_in /dev/$C /tmp/s77.a)" 0 "A's sectors on $C hold ciphertext before the rm"

# ext4_ranges: ext4's discards since trace_start (its ext4_discard_blocks
# tracepoint, on the crypt device), as merged ftlblk sector ranges.
ext4_ranges() {
	sed -n "s/.*ext4_discard_blocks: dev $CMM blk \([0-9]*\) count \([0-9]*\).*/\1 \2/p" "$TRACE/trace" |
		awk -v off="$COFF" '{ print off + $1 * 8, $2 * 8 }' | ranges_merge
}
# wait_covered FILE WHAT: wait (up to 20 s) until WHAT (a command printing
# merged ranges) covers FILE's ranges, then 0.3 s more.
wait_covered() {
	_i=0
	while [ -n "$($2 >/tmp/s77.w; missing "$1" /tmp/s77.w)" ] && [ $_i -lt 100 ]; do
		sleep 0.2
		_i=$((_i + 1))
	done
	sleep 0.3
}
ftl_merged() { trace_ranges "$C" | ranges_merge; }

# --- with --allow-discards: rm A -------------------------------------------------
ok "mount -o discard" mount -t ext4 -o discard /dev/mapper/s77cr $MNT
echo 1 >$EXT4EV/enable
snap "$C"
trace_start
ok "rm A, sync" sh -c "rm $MNT/A && sync"
wait_covered /tmp/s77.a ftl_merged
ok "umount" umount $MNT
ftl_merged >/tmp/s77.got
ext4_ranges >/tmp/s77.e4
diag "crypt: ext4 issued $(sed -n "/ext4_discard_blocks: dev $CMM /p" "$TRACE/trace" | wc -l) discards, ftlblk received $(trace_ranges "$C" | wc -l) ranges: $(trace_ranges "$C" | tr '\n' ' ')"
ok "crypt: ext4 issued discards (ext4_discard_blocks traced)" test -s /tmp/s77.e4
is "$(cat /tmp/s77.got)" "$(cat /tmp/s77.e4)" \
	"crypt: ftlblk received exactly ext4's discards shifted by the LUKS offset $COFF"
is "$(missing /tmp/s77.a /tmp/s77.got)" "" "crypt: every sector of A's $NA blocks reached ftlblk"
is "$(awk -v o="$COFF" '$1 < o' /tmp/s77.got)" "" "crypt: no discard reached the LUKS header"
cat /tmp/s77.b /tmp/s77.k | awk '{ print $1, $2 - $1 }' | ranges_merge >/tmp/s77.live
is "$(ranges_overlap /tmp/s77.got /tmp/s77.live)" "" "crypt: no block of B or K (still in use) was discarded"
is "$(nonzero_in /dev/$C /tmp/s77.a)" 0 "crypt: A's sectors read back as zeroes on $C"
# Beyond A the discards reach only free blocks, unmapped since the fstrim.
is "$(delta_of "$C" valid_pages)" "valid_pages=-$NA" "crypt: valid_pages dropped by exactly A's $NA blocks"

# --- without --allow-discards: rm B -----------------------------------------------
ok "cryptsetup close; open without --allow-discards" sh -c \
	"cryptsetup close s77cr && cryptsetup open --key-file $KEY /dev/$C s77cr && dmsetup mknodes s77cr"
ok "no allow_discards in the table, the crypt device has no discard (discard_max_bytes 0)" sh -c \
	"! dmsetup table s77cr | grep -qw allow_discards && [ $(dm_q s77cr discard_max_bytes) = 0 ]"
is "$(dmsetup table s77cr | awk '{ print $8 }')" "$COFF" "the data offset is unchanged"
CMM=$(dmsetup info -c --noheadings -o major,minor s77cr | tr -d ' ' | tr : ,)
ok "mount -o discard (ext4 only warns)" mount -t ext4 -o discard /dev/mapper/s77cr $MNT
KEYS="discard_requests discard_sectors pages_discarded valid_pages"
snap "$C"
trace_start
ok "rm B, sync" sh -c "rm $MNT/B && sync"
# Until 6.15 ext4 only warned and kept the option: it issues the discards
# (and ignores EOPNOTSUPP). Since 6.15 ("ext4: clear DISCARD flag if device
# does not support discard") it drops the option at mount: none is issued.
if kernel_at_least 6.15; then
	sync
	sleep 1
else
	wait_covered /tmp/s77.b ext4_ranges
fi
ok "fstrim fails (no discard support)" sh -c "! fstrim $MNT 2>/dev/null"
is "$(md5sum <$MNT/K)" "$sum_k" "K reads back unchanged"
ok "umount" umount $MNT
ext4_ranges >/tmp/s77.e4
if kernel_at_least 6.15; then
	is "$(ranges_overlap /tmp/s77.e4 /tmp/s77.b)" "" "no allow-discards: ext4 (6.15+) dropped -o discard, issued none for B"
else
	is "$(missing /tmp/s77.b /tmp/s77.e4)" "" "no allow-discards: ext4 still issued discards for all of B"
fi
is "$(traced "$C")" "" "no allow-discards: no discard reached ftlblk"
is "$(deltas "$C")" "discard_requests=0 discard_sectors=0 pages_discarded=0 valid_pages=0" \
	"no allow-discards: ftlblk's counters unchanged, B's $NB pages still mapped"
is "$(nonzero_in /dev/$C /tmp/s77.b | awk '{ print ($1 > 0) }')" 1 \
	"no allow-discards: B's ciphertext still on $C"
echo 0 >$EXT4EV/enable

# Reopened with --allow-discards, only fstrim recovers what was lost.
ok "reopen with --allow-discards, mount, fstrim" sh -c \
	"cryptsetup close s77cr && cryptsetup open --allow-discards --key-file $KEY /dev/$C s77cr &&
	 dmsetup mknodes s77cr && mount -t ext4 -o nodiscard /dev/mapper/s77cr $MNT && fstrim $MNT && umount $MNT"
is "$(nonzero_in /dev/$C /tmp/s77.b)" 0 "fstrim with --allow-discards: B's sectors are zeroes on ftlblk now"
ok "e2fsck -fn: the filesystem is consistent" e2fsck -fn /dev/mapper/s77cr
ok "cryptsetup close" cryptsetup close s77cr
ok "the LUKS header survived every discard" cryptsetup isLuks /dev/$C
lap dm-crypt

# ==== dm-thin ==================================================================
# Pool block 128 sectors (64 KiB, 16 flash pages) on a 64 MiB data device
# (1024 blocks), metadata on a second ftlblk device; one 8 MiB thin volume
# (128 blocks).
cdev_ok "device tmeta: 16 MiB" tmeta size=16 pages_per_block=64
TM=$CDEV
cdev_ok "device tdata: 64 MiB" tdata size=64 pages_per_block=64
TD=$CDEV
PB=128
TDS=$(blockdev --getsz /dev/$TD)
TLEN=16384
ok "zero the first 4 KiB of the metadata device" dd if=/dev/zero of=/dev/$TM bs=4096 count=1 oflag=direct
ok "dmsetup create s77pool: thin-pool, $PB-sector blocks, discard passdown (default)" \
	dm_create s77pool "0 $TDS thin-pool /dev/$TM /dev/$TD $PB 0"
ok "create thin 0, dmsetup create s77thin ($TLEN sectors)" sh -c \
	"dmsetup message s77pool 0 'create_thin 0' && dmsetup create s77thin --table '0 $TLEN thin /dev/mapper/s77pool 0' && dmsetup mknodes s77thin"
diag "s77thin: discard_granularity $(dm_q s77thin discard_granularity); s77pool: $(dm_q s77pool discard_granularity)"
# used_blocks: used data blocks of the pool ("... used/total data ...").
used_blocks() { dmsetup status s77pool | awk '{ split($6, a, "/"); print a[1] }'; }
is "$(used_blocks) $(dmsetup status s77pool | grep -ow discard_passdown)" "0 discard_passdown" \
	"fresh pool: no data block used, discard_passdown"
# Written sequentially one pool block per write, a fresh pool hands out
# data blocks in order (the space map allocates the lowest free block at
# or after the last one it gave out): thin block i -> data block i, i.e.
# thin sector s -> data sector s. Checked by content below, then used to
# compute every expected range.
mv /tmp/s77.rnd /tmp/s77.tref
ok "write 8 MiB of random data to the thin volume, 64 KiB at a time" \
	dd if=/tmp/s77.tref of=/dev/mapper/s77thin bs=64K oflag=direct
is "$(used_blocks)" 128 "the pool used 128 data blocks"
ok "thin block i is data block i: the first 8 MiB of $TD hold the data in order" \
	same /dev/$TD /tmp/s77.tref 0 $((TLEN * 512))
cp /tmp/s77.tref /tmp/s77.dref

KEYS="discard_requests discard_sectors pages_discarded valid_pages"
# thin_discard DESC OFF LEN FIRST N: blkdiscard LEN bytes at OFF of the thin
# volume, which covers pool blocks FIRST..FIRST+N-1 whole: with passdown
# they are freed and ftlblk receives exactly their data sectors.
thin_discard() {
	t_u=$(used_blocks)
	snap "$TD"
	trace_start
	ok "thin $1: blkdiscard -o $2 -l $3" blkdiscard -f -o "$2" -l "$3" /dev/mapper/s77thin
	diag "thin $1: $TD received: $(traced "$TD")"
	is "$(used_blocks)" $((t_u - $5)) "thin $1: the pool freed $5 blocks"
	t_exp='' t_what=nothing
	[ "$5" = 0 ] || t_exp="$(($4 * PB)) $((($4 + $5) * PB))" t_what="data blocks $4..$(($4 + $5 - 1))"
	is "$(trace_ranges "$TD" | ranges_merge)" "$t_exp" \
		"thin $1: ftlblk received exactly $t_what (sectors ${t_exp:-none})"
	t_p=$(($5 * PB / 8))
	is "$(deltas "$TD" | sed 's/discard_requests=[0-9]* //')" \
		"discard_sectors=$(($5 * PB)) pages_discarded=$t_p valid_pages=$((0 - t_p))" \
		"thin $1: $t_p pages discarded and unmapped on $TD"
	[ "$5" = 0 ] || zero_ref /tmp/s77.dref $(($4 * PB)) $(($5 * PB))
	ok "thin $1: $TD equals the written data with just those blocks zeroed" \
		same /dev/$TD /tmp/s77.dref 0 $((TLEN * 512))
}
# Pool blocks 10..29 exactly.
thin_discard "20 whole blocks" $((10 * 65536)) $((20 * 65536)) 10 20
ok "thin: the discarded range reads as zeroes on the thin volume" \
	zeroes /dev/mapper/s77thin $((10 * 65536)) $((20 * 65536))
# From the middle of block 40 to the middle of block 43: only 41 and 42 are
# covered whole; the halves of 40 and 43 are dropped by dm-thin, not zeroed.
thin_discard "blocks 40.5..43.5" $((40 * 65536 + 32768)) $((3 * 65536)) 41 2
thin_halves() {
	same /dev/mapper/s77thin /tmp/s77.tref $((40 * 65536 + 32768)) 32768 &&
	same /dev/mapper/s77thin /tmp/s77.tref $((43 * 65536)) 32768
}
ok "thin: the partly covered halves of blocks 40 and 43 keep their data" thin_halves
thin_discard "4 KiB inside block 50" $((50 * 65536 + 8192)) 4096 50 0

# --- no_discard_passdown: the pool frees blocks, ftlblk hears nothing ------------
ok "reload s77pool with no_discard_passdown" sh -c \
	"dmsetup suspend s77thin && dmsetup reload s77pool --table '0 $TDS thin-pool /dev/$TM /dev/$TD $PB 0 1 no_discard_passdown' &&
	 dmsetup resume s77pool && dmsetup resume s77thin"
is "$(dmsetup status s77pool | grep -ow no_discard_passdown)" no_discard_passdown "pool status: no_discard_passdown"
u=$(used_blocks)
snap "$TD"
trace_start
ok "no passdown: blkdiscard 10 whole blocks (100..109)" \
	blkdiscard -f -o $((100 * 65536)) -l $((10 * 65536)) /dev/mapper/s77thin
is "$(used_blocks)" $((u - 10)) "no passdown: the pool freed the 10 blocks"
ok "no passdown: the thin volume reads zeroes there" \
	zeroes /dev/mapper/s77thin $((100 * 65536)) $((10 * 65536))
is "$(traced "$TD")" "" "no passdown: no discard reached ftlblk"
is "$(deltas "$TD")" "discard_requests=0 discard_sectors=0 pages_discarded=0 valid_pages=0" \
	"no passdown: ftlblk's counters unchanged"
ok "no passdown: data blocks 100..109 still hold the data on $TD" \
	same /dev/$TD /tmp/s77.dref 0 $((TLEN * 512))
ok "dmsetup remove s77thin s77pool" sh -c "dmsetup remove s77thin && dmsetup remove s77pool"
is "$(st "$TM" discard_requests)" 0 "the metadata device received no discard"
rm -f /tmp/s77.tref /tmp/s77.dref
lap dm-thin

trace_stop
rm_devs() { for n in lin cr tmeta tdata; do cdev_remove $n || return 1; done; }
ok "remove the ftlblk devices" rm_devs
ok "modprobe -r ftlblk" modprobe -r ftlblk
check_dmesg
done_testing
