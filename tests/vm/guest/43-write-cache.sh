#!/bin/sh
# The volatile write cache (write_cache=1, cache_mib) and power cuts
# (ftl/power_cut, power_cut_mode): what a cut keeps and loses, read back
# page by page against the two versions written (pageclass).
#
# A and B are 4 MiB of random data each (1024 flash pages), written at the
# start of 16 MiB devices; every read is O_DIRECT, so nothing comes from
# the page cache, which a power cut does not touch.
# shellcheck source=lib.sh
. /tests/lib.sh
# shellcheck source=conform-lib.sh
. /tests/conform-lib.sh
need_cmd pageclass discard-race fio errno-write blkdiscard blkop
need_module ftlblk_conform
plan 74

A=/tmp/wc-A B=/tmp/wc-B R=/tmp/wc-R
cleanup() {
	for n in wc wk wn wr1 wr2 wr3 ws wu wg wf wm; do
		[ -d "$CFS/$n" ] && rmdir "$CFS/$n"
	done
	rm -f "$A" "$B" "$R" /tmp/wc-R2 /tmp/wc-v1 /tmp/wc-v2 /tmp/wc-v3
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

dd if=/dev/urandom of="$A" bs=1M count=4 2>/dev/null
dd if=/dev/urandom of="$B" bs=1M count=4 2>/dev/null
ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0

# wr FILE DEV [SEEK_MIB [COUNT_MIB]]: write FILE's first MiBs, no flush.
wr() {
	dd if="$1" of="/dev/$2" bs=1M seek="${3:-0}" skip="${3:-0}" \
		count="${4:-4}" oflag=direct conv=notrunc 2>/dev/null
}
# flush DEV: an fsync of the block device: one REQ_OP_FLUSH.
flush() { dd if=/dev/null of="/dev/$1" conv=fsync,notrunc 2>/dev/null; }
# cls DEV [REF...]: what the first 4 MiB of DEV hold, page by page.
cls() {
	_d=$1
	shift
	[ $# -gt 0 ] || set -- "$A"
	dd if="/dev/$_d" of="$R" bs=1M count=4 iflag=direct 2>/dev/null &&
		pageclass "$R" "$@"
}
cut() { echo 1 > "/sys/block/$1/ftl/power_cut"; }
restore() { echo 0 > "/sys/block/$1/ftl/power_cut"; }

# ---- write_cache=1, power_cut_mode all: exactly the last flush survives --
W=$(mkdev wc size=16 pages_per_block=64 write_cache=1)
is "$(sysfs_read /sys/block/"$W"/queue/write_cache)" "write back" "$W: queue/write_cache is write back"
is "$(sysfs_read /sys/block/"$W"/queue/fua)" 1 "$W: queue/fua is 1"
is "$(st "$W" write_cache) $(st "$W" cache_mib) $(st "$W" power_cut) $(st "$W" power_cut_mode)" \
	"1 0 0 all" "write_cache 1, cache_mib 0, power_cut 0, power_cut_mode all"
wr "$A" "$W"
is "$(st "$W" cached_pages) $(st "$W" host_pages_written)" "1024 0" \
	"4 MiB written, not flushed: 1024 pages cached, none programmed"
is "$(cls "$W" "$A")" "ref0=1024 zero=0 other=0" "reads see the cached data"
# One sector of 'Z's into cached page 1 (fio: a real 512-byte O_DIRECT
# write, so the device merges it): merged with the cached page.
dd if="$A" of=/tmp/wc-v1 bs=4096 skip=1 count=1 2>/dev/null
dd if=/dev/zero bs=512 count=1 2>/dev/null | tr '\000' Z |
	dd of=/tmp/wc-v1 bs=512 seek=1 conv=notrunc 2>/dev/null
fio --eta=never --name=sector --filename="/dev/$W" --rw=write --bs=512 --size=512 \
	--offset=4608 --direct=1 --buffer_pattern=0x5a --output=/dev/null
dd if="/dev/$W" of=/tmp/wc-v2 bs=1M count=1 iflag=direct 2>/dev/null
dd if=/tmp/wc-v2 of=/tmp/wc-R2 bs=4096 skip=1 count=1 2>/dev/null
ok "a 512-byte write into a cached page merges with the cached data" cmp /tmp/wc-v1 /tmp/wc-R2
wr "$A" "$W" 0 1
KEYS="flush_requests cache_writebacks host_pages_written"
snap "$W"
ok "flush (fsync of the block device)" flush "$W"
is "$(deltas "$W") cached=$(st "$W" cached_pages)" \
	"flush_requests=1 cache_writebacks=1024 host_pages_written=1024 cached=0" \
	"the flush wrote back all 1024 pages: durable now"
wr "$B" "$W" 0 2
is "$(st "$W" cached_pages)" 512 "2 MiB of B, not flushed: 512 pages cached"
is "$(cls "$W" "$A" "$B")" "ref0=512 ref1=512 zero=0 other=0" "reads: B over the first half"
ok "cut the power" cut "$W"
is "$(st "$W" power_cut) $(st "$W" power_cuts) $(st "$W" pages_lost_at_power_cut) $(st "$W" cached_pages)" \
	"1 1 512 0" "power_cut 1, one cut, the 512 cached pages lost"
dd if="/dev/$W" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null
is "$?" 1 "power off: a read fails"
is "$(errno-write "/dev/$W" x)" EIO "power off: a write fails with EIO"
blkdiscard -o 0 -l 4096 "/dev/$W" 2>/dev/null
is "$?" 1 "power off: a discard fails"
flush "$W"
is "$?" 1 "power off: a flush fails"
is "$(st "$W" cached_pages) $(st "$W" host_pages_written)" "0 1024" "nothing reached the device while off"
ok "restore the power" restore "$W"
is "$(st "$W" power_cut)" 0 "power_cut 0"
is "$(cls "$W" "$A" "$B")" "ref0=1024 ref1=0 zero=0 other=0" \
	"after the cut the device reads exactly as at its last flush"

# ---- discards are cached too, and ordered with writes --------------------
ok "discard the first MiB" blkdiscard -o 0 -l 1048576 "/dev/$W"
is "$(cls "$W") $(st "$W" cached_pages)" "ref0=768 zero=256 other=0 256" \
	"the discarded MiB reads as zeroes, 256 pending discards cached"
cut "$W"; restore "$W"
is "$(cls "$W")" "ref0=1024 zero=0 other=0" "an unflushed discard is lost at a cut: the data is back"
vp=$(st "$W" valid_pages)
blkdiscard -o 0 -l 1048576 "/dev/$W"; flush "$W"
is "$(st "$W" valid_pages)" $((vp - 256)) "a flushed discard reaches the FTL: valid_pages -256"
cut "$W"; restore "$W"
is "$(cls "$W")" "ref0=768 zero=256 other=0" "a flushed discard survives the cut"
# discard, then write the same pages: the write wins, across flush and cut.
wr "$A" "$W" 0 4; flush "$W"
blkdiscard -o 1048576 -l 1048576 "/dev/$W"
wr "$B" "$W" 1 1
is "$(cls "$W" "$A" "$B")" "ref0=768 ref1=256 zero=0 other=0" "discard then write: reads see the write"
flush "$W"; cut "$W"; restore "$W"
is "$(cls "$W" "$A" "$B")" "ref0=768 ref1=256 zero=0 other=0" "discard then write, flushed: the write survives the cut"
# write, then discard: the discard wins.
wr "$B" "$W" 2 1
blkdiscard -o 2097152 -l 1048576 "/dev/$W"
flush "$W"; cut "$W"; restore "$W"
is "$(cls "$W" "$A" "$B")" "ref0=512 ref1=256 zero=256 other=0" "write then discard, flushed: zeroes survive the cut"

# ---- FUA: durable at completion, without a write-back --------------------
flush "$W"
KEYS="cache_writebacks host_pages_written"
snap "$W"
ok "fio: 1 MiB of O_DIRECT|O_DSYNC writes (FUA)" fio --eta=never --name=fua --filename="/dev/$W" \
	--rw=write --bs=64k --size=1M --offset=3M --direct=1 --sync=dsync \
	--verify=crc32c --do_verify=0 --output=/dev/null
is "$(deltas "$W") cached=$(st "$W" cached_pages)" "cache_writebacks=0 host_pages_written=256 cached=0" \
	"FUA writes went straight to flash (none cached, none written back)"
cut "$W"; restore "$W"
ok "the FUA data survives a cut (fio verify)" fio --eta=never --name=fua --filename="/dev/$W" \
	--rw=write --bs=64k --size=1M --offset=3M --direct=1 --verify=crc32c \
	--verify_only --output=/dev/null

# ---- errors --------------------------------------------------------------
dmesg_n=$(dmesg | wc -l)
is "$(errno-write /sys/block/"$W"/ftl/power_cut 2) $(dmesg | tail -n +$((dmesg_n + 1)) | grep -c "$W: invalid power_cut '2': allowed 1 (cut the power) or 0 (restore it)")" \
	"EINVAL 1" "power_cut 2: EINVAL, one log line"
is "$(errno-write /sys/block/"$W"/ftl/power_cut 1junk) $(errno-write /sys/block/"$W"/ftl/power_cut 0x1) $(st "$W" power_cut)" \
	"EINVAL EINVAL 0" "power_cut 1junk and 0x1: EINVAL, the power stays on"
dmesg_n=$(dmesg | wc -l)
is "$(errno-write /sys/block/"$W"/ftl/power_cut_mode sometimes) $(dmesg | tail -n +$((dmesg_n + 1)) | grep -c "$W: invalid power_cut_mode 'sometimes': allowed all or random")" \
	"EINVAL 1" "power_cut_mode sometimes: EINVAL, one log line"
is "$(errno-write /sys/block/"$W"/ftl/cached_pages 1)" EACCES "cached_pages is read-only"
is "$(errno-write "$CFS/wc/power_cut" 1) $(cat "$CFS/wc/power_cut") $(st "$W" power_cut)" "ok 1 1" \
	"configfs power_cut 1 cuts the power too"
is "$(errno-write "$CFS/wc/power_cut" 0) $(cat "$CFS/wc/power_cut")" "ok 0" "configfs power_cut 0 restores it"
is "$(errno-write /sys/block/"$W"/ftl/power_cut 0) $(st "$W" power_cuts)" "ok 7" \
	"restoring a powered device changes nothing (7 cuts so far)"
before="$(st "$W" power_cuts) $(st "$W" cache_writebacks) $(st "$W" pages_lost_at_power_cut)"
# shellcheck disable=SC2086 # the three numbers
counted=$(printf '%s\n' $before | awk '$1 > 0 { n++ } END { print n + 0 }')
echo 1 > "/sys/block/$W/ftl/reset_stats"
is "$counted $(st "$W" power_cuts) $(st "$W" cache_writebacks) $(st "$W" pages_lost_at_power_cut)" "3 0 0 0" \
	"reset_stats zeroes power_cuts, cache_writebacks and pages_lost_at_power_cut (were $before)"
rmdir "$CFS/wc"

# ---- a flush after a cut that dropped completed writes fails, once -------
# A flush vouches for every write completed before it: after a cut dropped
# cached updates of completed requests, the first flush to end reports it
# (EIO), then flushes succeed again. On the raw device, so that nothing but
# the flush can fail (blkop fsync: fsync(2) of the device, its errno).
K=$(mkdev wk size=16 pages_per_block=64 write_cache=1)
wr "$A" "$K" 0 1
is "$(blkop fsync "/dev/$K") $(st "$K" cached_pages)" "ok 0" "$K: 1 MiB written and flushed"
wr "$B" "$K" 0 1
cut "$K"; restore "$K"
is "$(st "$K" pages_lost_at_power_cut) $(blkop fsync "/dev/$K") $(blkop fsync "/dev/$K") $(st "$K" flushes_failed_after_cut)" \
	"256 EIO ok 1" "a cut dropped 256 completed writes: the next fsync fails with EIO, the one after succeeds"
wr "$B" "$K" 0 1; cut "$K"; restore "$K"
wr "$B" "$K" 1 1; cut "$K"; restore "$K"
is "$(st "$K" pages_lost_at_power_cut) $(blkop fsync "/dev/$K") $(blkop fsync "/dev/$K") $(st "$K" flushes_failed_after_cut)" \
	"768 EIO ok 2" "two cuts that dropped writes before one fsync: one EIO"
cut "$K"; restore "$K"
is "$(blkop fsync "/dev/$K") $(st "$K" flushes_failed_after_cut) $(st "$K" power_cuts)" "ok 2 4" \
	"a cut with the cache empty dropped nothing: the next fsync succeeds"
wr "$B" "$K" 0 1; cut "$K"
is "$(blkop fsync "/dev/$K")" EIO "power off: fsync fails with EIO"
restore "$K"
is "$(st "$K" pages_lost_at_power_cut) $(blkop fsync "/dev/$K") $(st "$K" flushes_failed_after_cut)" "1024 ok 2" \
	"the fsync that failed while the power was off reported the loss: the first after the restore succeeds"
blkdiscard -o 0 -l 1048576 "/dev/$K"
cut "$K"; restore "$K"
is "$(st "$K" pages_lost_at_power_cut) $(blkop fsync "/dev/$K") $(blkop fsync "/dev/$K") $(st "$K" flushes_failed_after_cut)" \
	"1280 EIO ok 3" "a completed discard dropped by a cut fails the next fsync too"
rmdir "$CFS/wk"

# ---- write_cache=0: nothing volatile, a cut loses nothing -----------------
N=$(mkdev wn size=16 pages_per_block=64)
is "$(sysfs_read /sys/block/"$N"/queue/write_cache)" "write through" "$N: write_cache 0: write through"
wr "$A" "$N"
ok "cut the power of $N" cut "$N"
is "$(errno-write "/dev/$N" x)" EIO "$N power off: a write fails with EIO"
restore "$N"
is "$(cls "$N") $(st "$N" pages_lost_at_power_cut) $(st "$N" power_cuts) $(st "$N" cached_pages)" \
	"ref0=1024 zero=0 other=0 0 1 0" "write_cache 0: every completed write survives the cut"
is "$(blkop fsync "/dev/$N") $(st "$N" flushes_failed_after_cut)" "ok 0" \
	"write_cache 0: the cut dropped nothing, the next fsync succeeds"
rmdir "$CFS/wn"

# ---- power_cut_mode random: each unflushed update kept or lost -----------
# rnd NAME SEED: A flushed, B written over it, cut in random mode; the
# per-page outcome goes to /tmp/wc-v<NAME's digit>.
rnd() {
	_d=$(mkdev "$1" size=16 pages_per_block=64 write_cache=1 fault_seed="$2" power_cut_mode=random)
	wr "$A" "$_d"; flush "$_d"; wr "$B" "$_d"; cut "$_d"; restore "$_d"
	dd if="/dev/$_d" of="$R" bs=1M count=4 iflag=direct 2>/dev/null
	pageclass -v "$R" "$A" "$B" > "/tmp/wc-v${1#wr}"
	echo "$_d"
}
D1=$(rnd wr1 7)
lost=$(st "$D1" pages_lost_at_power_cut)
counts=$(tail -n 1 /tmp/wc-v1)
is "$counts" "ref0=$lost ref1=$((1024 - lost)) zero=0 other=0" \
	"random: every page is A (lost update) or B (kept), $lost lost = pages_lost_at_power_cut"
ok "random: some lost and some kept ($lost of 1024 lost)" test "$lost" -gt 384 -a "$lost" -lt 640
rnd wr2 7 >/dev/null
is "$(md5sum < /tmp/wc-v2)" "$(md5sum < /tmp/wc-v1)" "the same fault_seed tears the cache the same way"
rnd wr3 8 >/dev/null
isnt "$(md5sum < /tmp/wc-v3)" "$(md5sum < /tmp/wc-v1)" "another fault_seed tears it differently"
# Discards in random mode: each page is its old data or zeroes.
flush "$D1"
dd if="/dev/$D1" of=/tmp/wc-R2 bs=1M count=4 iflag=direct 2>/dev/null
blkdiscard -o 0 -l 4194304 "/dev/$D1"
cut "$D1"; restore "$D1"
dd if="/dev/$D1" of="$R" bs=1M count=4 iflag=direct 2>/dev/null
c=$(pageclass "$R" /tmp/wc-R2)
z=${c#*zero=}; z=${z%% *}
is "$c" "ref0=$((1024 - z)) zero=$z other=0" "random: a discarded page is its old data or zeroes, nothing else ($z zeroed)"
ok "random: some discards kept, some lost" test "$z" -gt 384 -a "$z" -lt 640
rmdir "$CFS/wr1" "$CFS/wr2" "$CFS/wr3"

# ---- power_cut_mode: one value, whichever side wrote it -------------------
C=$(mkdev wm size=16 pages_per_block=64 write_cache=1)
echo random > "/sys/block/$C/ftl/power_cut_mode"
is "$(cat "$CFS/wm/power_cut_mode") $(st "$C" power_cut_mode)" "random random" \
	"power_cut_mode random through sysfs: configfs shows it too"
echo 0 > "$CFS/wm/power"
echo 1 > "$CFS/wm/power"
C=ftlblk$(cat "$CFS/wm/index")
is "$(cat "$CFS/wm/power_cut_mode") $(st "$C" power_cut_mode)" "random random" \
	"and keeps it across power off and on"
echo all > "$CFS/wm/power_cut_mode"
is "$(cat "$CFS/wm/power_cut_mode") $(st "$C" power_cut_mode)" "all all" \
	"power_cut_mode all through configfs: the device's too"
rmdir "$CFS/wm"

# ---- cache_mib: a full cache writes back its oldest updates --------------
S=$(mkdev ws size=16 pages_per_block=64 write_cache=1 cache_mib=1)
wr "$A" "$S"
is "$(st "$S" cached_pages) $(st "$S" cache_writebacks)" "256 768" \
	"cache_mib 1 (256 pages): 1024 written, the oldest 768 written back"
cut "$S"; restore "$S"
is "$(cls "$S") $(st "$S" pages_lost_at_power_cut)" "ref0=768 zero=256 other=0 256" \
	"a cut loses only the 256 still cached (the last ones written)"
dd if="/dev/$S" of="$R" bs=1M count=4 iflag=direct 2>/dev/null
is "$(pageclass -v "$R" "$A" | awk '$2 == "zero" { print $1; exit }')" 768 \
	"the pages lost are the newest: from page 768 on"
rmdir "$CFS/ws"

# ---- FUA writes over a full cache: the ring slots they leave -------------
# 255 FUA writes (with no flush after them, as a filesystem's write-through
# O_DSYNC sends them: ftlblk_conform test=fua) over a full 256-page cache
# leave its ring full of stale slots before one live entry: calls under
# the lock step past at most 64 of them each, freeing as many ring slots,
# so 256 more cached writes need exactly one write-back (that entry), and
# after a flush all of it survives a cut.
U=$(mkdev wu size=16 pages_per_block=64 write_cache=1 cache_mib=1)
wr "$A" "$U" 0 1
conform dev="/dev/$U" test=fua sector=0 count=255
is "$(st "$U" cached_pages) $(st "$U" cache_writebacks)" "1 0" \
	"255 FUA writes over 256 cached pages: 1 left cached, none written back"
wr "$A" "$U" 1 1
is "$(st "$U" cached_pages) $(st "$U" cache_writebacks)" "256 1" \
	"256 writes past 255 stale ring slots: one write-back, the oldest entry"
flush "$U"; cut "$U"; restore "$U"
is "$(cls "$U") $(st "$U" pages_lost_at_power_cut)" "ref0=257 zero=512 other=255 0" \
	"flushed: the FUA data, the old entry and the new writes survive a cut"
rmdir "$CFS/wu"

# ---- ordering under concurrency, GC and write-back, then a cut -----------
# 4 threads write, discard and read overlapping pages of a small-OP device
# whose 1 MiB cache writes back constantly, fsync every 40 operations; the
# history checks every read; at the end fsync, cut, restore: every page
# must read what it did before the cut.
G=$(mkdev wg size=16 write_cache=1 cache_mib=1 pages_per_block=64 op_percent=7)
dd if=/dev/urandom of="/dev/$G" bs=1M oflag=direct 2>/dev/null
flush "$G"
out=$(discard-race -t 4 -n 1500 -p 3800 -m 8 -f 40 -s 3 \
	-c "/sys/block/$G/ftl/gc_runs" -c "/sys/block/$G/ftl/cache_writebacks" \
	-P "/sys/block/$G/ftl/power_cut" "/dev/$G" 2>&1)
rc=$?
diag "$out"
field() { printf '%s\n' "$out" | sed -n "s/^discard-race: .* $1=\([0-9,-]*\).*/\1/p"; }
is "rc=$rc violations=$(field violations) io_errors=$(field io_errors) lost_at_cut=$(field lost_at_cut)" \
	"rc=0 violations=0 io_errors=0 lost_at_cut=0" \
	"race with cache: every read allowed by the history, nothing flushed lost at the cut"
during=$(field counter_during)
ok "GC ran and the cache wrote back during the race (gc_runs,writebacks: $during)" \
	test "${during%,*}" -gt 0 -a "${during#*,}" -gt 0
ok "the threads flushed ($(field flushes) fsyncs)" test "$(field flushes)" -gt 0
rmdir "$CFS/wg"

# ---- flush with timing: the flush pays for the write-back ----------------
F=$(mkdev wf size=16 pages_per_block=64 write_cache=1 timing=1)
wr "$A" "$F" 0 1
is "$(st "$F" host_busy_ns)" 0 "timing: cached writes occupy no flash"
flush "$F"
is "$(st "$F" host_busy_ns)" $((256 * 600000)) "timing: the flush programs the 256 pages (256 x tPROG)"
rmdir "$CFS/wf"

check_dmesg "no kernel warnings (I/O errors while the power is off are expected)" \
	'WARNING:|BUG:|Oops|general protection|Call Trace|refcount_t:|corruption|EXT4-fs error'
