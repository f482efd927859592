#!/bin/sh
# Data memory: mem_limit_mib caps what a device holds (mapped and pooled
# pages): a write beyond it fails with ENOSPC having written nothing, the
# data before is intact, mem_limit_rejections counts it, and a discard
# frees room again, also one with a partial first page at the limit (whole
# pages are unmapped before the partial ones need memory). With discard=0,
# write-zeroes never deallocates. A 4 GiB device with a 1 GiB limit on a
# 2 GiB guest stops at the limit and leaves the guest its memory.
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
need_cmd blkdiscard blkop md5sum fio
plan 61

LIMIT=$((8 << 20))

cleanup() {
	for n in m s z big; do [ -d "$CFS/$n" ] && rmdir "$CFS/$n"; done
	rm -f /tmp/m.ref /tmp/m.img
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

sum() { md5sum | cut -d' ' -f1; }
# put SRC_OFF DST_OFF LEN (4 KiB units): write LEN x 4 KiB of /tmp/m.ref
# at SRC_OFF to the device at DST_OFF, 4 KiB per request until the first
# error, and record in the image what was written; prints dd's error.
put() {
	_e=$(dd if=/tmp/m.ref of=/dev/"$M" bs=4k skip="$1" seek="$2" count="$3" \
		oflag=direct conv=notrunc 2>&1)
	_s=$?
	_n=$(printf '%s\n' "$_e" | sed -n 's/^\([0-9]*\)+0 records out$/\1/p')
	dd if=/tmp/m.ref of=/tmp/m.img bs=4k skip="$1" seek="$2" count="${_n:-0}" \
		conv=notrunc 2>/dev/null
	[ $_s = 0 ] && { echo "ok $_n"; return; }
	case $_e in *"No space left on device"*) echo "ENOSPC $_n" ;; *) echo "other: $_e" ;; esac
}
# zimg SECTOR COUNT: the image gets the zeroes a discard writes.
zimg() { dd if=/dev/zero of=/tmp/m.img bs=512 seek="$1" count="$2" conv=notrunc 2>/dev/null; }
held() { held_of "$M"; }
held_of() { echo $(($(st "$1" data_bytes) + $(st "$1" pool_bytes))); }
nonzero() { dd if=/dev/"$1" bs=512 skip="$2" count="$3" iflag=direct 2>/dev/null | tr -d '\000' | wc -c; }

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
M=$(mkdev m size=32 pages_per_block=64 mem_limit_mib=8)
ok "device m is $M (32 MiB, mem_limit_mib 8)" test -b "/dev/$M"
ok "32 MiB of random data" dd if=/dev/urandom of=/tmp/m.ref bs=1M count=32
dd if=/dev/zero of=/tmp/m.img bs=1M count=32 2>/dev/null

# ---- fill to the limit -------------------------------------------------
is "$(put 0 0 8192)" "ENOSPC 2048" "4 KiB writes: the 2049th fails with ENOSPC"
is "$(st "$M" data_bytes) $(st "$M" pool_bytes)" "$LIMIT 0" "8 MiB of data, nothing pooled"
is "$(st "$M" mem_limit_rejections)" 1 "mem_limit_rejections 1"
is "$(put 6000 6000 1)" "ENOSPC 0" "the next write of a new page: ENOSPC"
is "$(put 7000 4000 256)" "ENOSPC 0" "and the next: ENOSPC"
is "$(st "$M" mem_limit_rejections) $(st "$M" valid_pages)" "3 2048" \
	"mem_limit_rejections 3, still 2048 valid pages"
is "$(sum < /dev/"$M")" "$(sum < /tmp/m.img)" "the data written before is intact, the rest reads zeroes"

# ---- overwrites at the limit -------------------------------------------
# Each new page replaces one the device gives back: the memory does not
# grow, so they succeed (a full filesystem must rewrite its journal).
is "$(put 3000 0 1)" "ok 1" "at the limit, an overwrite of page 0 succeeds"
is "$(put 3100 1000 64)" "ok 64" "and 64 more, 4 KiB each"
ok "a 1 MiB overwrite (one request of 256 pages)" \
	dd if=/tmp/m.ref of=/dev/"$M" bs=1M skip=12 seek=1 count=1 oflag=direct conv=notrunc
dd if=/tmp/m.ref of=/tmp/m.img bs=1M skip=12 seek=1 count=1 conv=notrunc 2>/dev/null
ok "a partial-page overwrite (sectors 1..2): read-modify-write at the limit" \
	fio --eta=never --name=partial --filename=/dev/"$M" --rw=write --bs=512 --offset=512 \
	--size=1024 --direct=1 --buffer_pattern=0x5a --output=/dev/null
dd if=/dev/zero bs=512 count=2 2>/dev/null | tr '\000' '\132' |
	dd of=/tmp/m.img bs=512 seek=1 conv=notrunc 2>/dev/null
is "$(st "$M" data_bytes) $(st "$M" pool_bytes) $(st "$M" mem_limit_rejections)" "$LIMIT 0 3" \
	"still 8 MiB of data, nothing pooled above the limit, no rejection"
is "$(put 6000 6000 1)" "ENOSPC 0" "a write of a new page still fails"
is "$(sum < /dev/"$M")" "$(sum < /tmp/m.img)" "every overwrite landed, the rest is intact"

# ---- discard and write-zeroes of held pages at the limit -----------------
# Each replaces a held page by one new page, as an overwrite does: it must
# pass where an overwrite would. (BLKZEROOUT falls back to writing zeroes
# when the write-zeroes fails, so mem_limit_rejections tells them apart.)
is "$(blkop discard /dev/"$M" 2560 512) $(st "$M" mem_limit_rejections)" "ok 4" \
	"a one-sector discard of held page 1 (rewritten, a page for a page) succeeds"
zimg 5 1
is "$(blkop zeroout /dev/"$M" $((1000 * 4096)) 4096) $(st "$M" mem_limit_rejections) $(st "$M" write_zeroes_requests)" \
	"ok 4 1" "BLKZEROOUT (REQ_NOUNMAP) of held page 1000: zeroes programmed, no rejection"
zimg 8000 8
is "$(blkop zero-range /dev/"$M" $((1001 * 4096 + 512)) 512) $(st "$M" mem_limit_rejections) $(st "$M" write_zeroes_requests)" \
	"ok 4 2" "a one-sector write-zeroes with REQ_NOUNMAP into held page 1001: no rejection"
zimg 8009 1
# A long one: each page's old copy waits in limbo for a grace period, so
# the allowance covers every page the request replaced so far (one page's
# worth would wait a grace period per page).
t0=$(awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime)
r=$(blkop zeroout /dev/"$M" $((1100 * 4096)) $((1 << 20)))
t1=$(awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime)
is "$r $(st "$M" mem_limit_rejections)" "ok 4" "BLKZEROOUT of 1 MiB of held pages at the limit: no rejection"
ok "and it took $((t1 - t0)) ms (< 3000: not a grace period per page)" test $((t1 - t0)) -lt 3000
zimg 8800 2048
is "$(st "$M" data_bytes) $(st "$M" valid_pages)" "$LIMIT 2048" "still 8 MiB of data, 2048 valid pages"
r=$(st "$M" mem_limit_rejections)
is "$(blkop zeroout /dev/"$M" $((6000 * 4096)) 4096)" ENOSPC \
	"BLKZEROOUT of an unmapped page at the limit: ENOSPC (the device would hold more)"
ok "and it was refused at the limit (mem_limit_rejections $r -> $(st "$M" mem_limit_rejections))" \
	test "$(st "$M" mem_limit_rejections)" -gt "$r"
rej=$(st "$M" mem_limit_rejections)
is "$(sum < /dev/"$M")" "$(sum < /tmp/m.img)" "the zeroed sectors read zeroes, the rest is intact"

# ---- a discard with a partial first and last page, at the limit ---------
# Sectors 1..8192: page 0 and page 1024 partly, pages 1..1023 whole. The
# partial pages need memory, which only the whole pages can free.
ok "at the limit: blkdiscard -o 512 -l 4M (partial first and last page)" \
	blkdiscard -f -o 512 -l $((4 << 20)) /dev/"$M"
zimg 1 8192
is "$(st "$M" valid_pages) $(st "$M" data_bytes)" "1025 $((1025 * 4096))" \
	"1023 pages unmapped, the two partial ones rewritten: 1025 valid"
ok "data_bytes + pool_bytes <= 8 MiB ($(held))" test "$(held)" -le $LIMIT
is "$(nonzero "$M" 1 8192)" 0 "the discarded sectors read zeroes"
is "$(sum < /dev/"$M")" "$(sum < /tmp/m.img)" "everything else is intact"

# ---- room again, exactly what was freed --------------------------------
is "$(put 4096 4096 512)" "ok 512" "2 MiB of new data at 16 MiB fit again"
ok "data_bytes + pool_bytes <= 8 MiB ($(held))" test "$(held)" -le $LIMIT
is "$(put 5000 5000 2048)" "ENOSPC $((2048 - 1025 - 512))" \
	"refill: new pages fit up to the limit exactly ($((2048 - 1025 - 512)) x 4 KiB)"
is "$(st "$M" data_bytes) $(st "$M" pool_bytes)" "$LIMIT 0" "8 MiB of data again"
is "$(st "$M" mem_limit_rejections)" $((rej + 1)) "mem_limit_rejections $((rej + 1))"
is "$(sum < /dev/"$M")" "$(sum < /tmp/m.img)" "all data intact"
ok "blkdiscard the whole device" blkdiscard -f /dev/"$M"
# The released pages wait in limbo for an RCU grace period (milliseconds),
# then at most 2 MiB stay pooled: poll for up to 5 s.
pool_settled() {	# DEV -> pool_bytes once it is <= 2 MiB, or the last value
	_i=0
	while [ $_i -lt 50 ]; do
		_p=$(st "$1" pool_bytes)
		[ "$_p" -le $((2 << 20)) ] && break
		sleep 0.1
		_i=$((_i + 1))
	done
	echo "$_p"
}
p=$(pool_settled "$M")
ok "data_bytes 0, pool_bytes <= 2 MiB after a grace period ($p)" test "$(st "$M" data_bytes)" = 0 -a "$p" -le $((2 << 20))
dd if=/dev/zero of=/tmp/m.img bs=1M count=32 conv=notrunc 2>/dev/null
is "$(put 0 0 2048)" "ok 2048" "8 MiB fit again after the discard"
echo 1 > /sys/block/"$M"/ftl/reset_stats
is "$(st "$M" mem_limit_rejections)" 0 "reset_stats zeroes mem_limit_rejections"
ok "rmdir $CFS/m" rmdir "$CFS/m"

# ---- the same with one range per request -------------------------------
# The block layer sends the partial first page of an unaligned discard as
# a bio of its own; with max_discard_segments 1 it arrives merged into one
# range, with 64 (device m) as two ranges of one request.
S=$(mkdev s size=16 pages_per_block=64 mem_limit_mib=4 max_discard_segments=1)
ok "device s is $S (mem_limit_mib 4, max_discard_segments 1)" test -b "/dev/$S"
is "$(dd if=/tmp/m.ref of=/dev/"$S" bs=4k count=2048 oflag=direct 2>&1 | grep -c 'No space left') $(st "$S" data_bytes)" \
	"1 $((4 << 20))" "filled to its limit of 4 MiB, then ENOSPC"
ok "at the limit: blkdiscard -o 512 -l 2M (partial first and last page)" \
	blkdiscard -f -o 512 -l $((2 << 20)) /dev/"$S"
is "$(st "$S" valid_pages) $(st "$S" discard_requests) $(st "$S" discard_ranges)" "513 1 1" \
	"one request, one range: 511 pages unmapped, the two partial ones rewritten"
ok "rmdir $CFS/s" rmdir "$CFS/s"

# ---- discard=0: write-zeroes programs zeroes, never deallocates ---------
Z=$(mkdev z size=16 pages_per_block=64 discard=0)
ok "device z is $Z (discard=0)" test -b "/dev/$Z"
ok "write 1 MiB, then one sector at 1 MiB" sh -c \
	"dd if=/tmp/m.ref of=/dev/$Z bs=1M count=1 oflag=direct 2>/dev/null && dd if=/tmp/m.ref of=/dev/$Z bs=512 count=1 seek=2048 oflag=direct 2>/dev/null"
is "$(st "$Z" valid_pages) $(st "$Z" data_bytes)" "257 $((257 * 4096))" "257 pages allocated"
is "$(blkop punch /dev/"$Z" 0 $((1 << 20))) $(blkop punch /dev/"$Z" $((1 << 20)) 512)" "ok ok" \
	"write-zeroes without NOUNMAP (punch) of the first MiB and of the lone sector"
is "$(st "$Z" valid_pages) $(st "$Z" data_bytes)" "257 $((257 * 4096))" \
	"discard=0: every page stays allocated, also the one left all zeroes"
is "$(nonzero "$Z" 0 2056)" 0 "and they read zeroes"
ok "rmdir $CFS/z" rmdir "$CFS/z"

# ---- a device larger than the guest's RAM -----------------------------
# 4 GiB on a 2 GiB guest with mem_limit_mib=1024: filling it stops with
# ENOSPC at the limit instead of taking the guest's memory, and the guest
# keeps working (it can still allocate 256 MiB and run a process).
ram=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
B=$(mkdev big size=4096 pages_per_block=256 mem_limit_mib=1024)
ok "device big is $B: 4096 MiB, more than the guest's $ram MiB of RAM" \
	test -b "/dev/$B" -a "$ram" -lt 4096
r=$(dd if=/dev/zero of=/dev/"$B" bs=1M count=4096 oflag=direct 2>&1)
case $r in *"No space left on device"*) r=ENOSPC ;; esac
is "$r" ENOSPC "filling it stops with ENOSPC"
ok "at 1024 MiB: data_bytes + pool_bytes = $(($(held_of "$B") >> 20)) MiB" \
	test "$(held_of "$B")" -le $((1024 << 20)) -a "$(held_of "$B")" -ge $((1000 << 20))
ok "the guest still has memory for others: 256 MiB in a tmpfs" sh -c \
	"mkdir -p /tmp/mm && mount -t tmpfs -o size=300m none /tmp/mm &&
	dd if=/dev/zero of=/tmp/mm/f bs=1M count=256 2>/dev/null && umount /tmp/mm"
echo 0 >"$CFS/big/power"
ok "rmdir $CFS/big" rmdir "$CFS/big"
ok "modprobe -r ftlblk" modprobe -r ftlblk

# The rejected writes log the block layer's "critical space allocation"
# lines; nothing else may appear.
check_dmesg
done_testing
