#!/bin/sh
# Seed conformance, filesystems freeing blocks (the seed did FAT; ext4 is
# today's main user): ext4 mounted -o discard on ftlblk. After deleting
# fragmented files and sync, the ftlblk_discard tracepoint shows exactly
# their blocks (data and extent-tree blocks, read with debugfs from the
# unmounted volume), all free afterwards (dumpe2fs); truncate discards the
# freed tail. fstrim discards exactly the free blocks; a second fstrim sends
# nothing (groups marked trimmed), after a remount everything again.
#
# 6.1 specifics this test pins down: online discard runs from a workqueue
# after the journal commit (ext4_process_freed_data -> s_discard_work), so
# sync returns before the discards are sent; and it discards each freed
# extent through ext4_try_to_trim_range(), which extends the range forward
# over the free blocks that follow it, up to the next block in use (or the
# end of the group). The trace runs until the filesystem is unmounted, so
# the checks see every discard ext4 sent, however late (and a discard it
# dropped at umount shows as a freed block never discarded). The device
# must have unmapped exactly the blocks the files freed, from debugfs alone:
# valid_pages and data_bytes drop by that many pages and
# valid_pages_discarded counts them all (the free blocks the discards
# reach beyond them never held data). See docs/conformance.md.
# shellcheck source=lib.sh
. /tests/lib.sh
# shellcheck source=conform-lib.sh
. /tests/conform-lib.sh
need_module ftlblk
need_cmd mkfs.ext4 debugfs dumpe2fs e2fsck fstrim

plan 42

MNT=/mnt/c74
BS=4096
SPB=$((BS / 512))
traced() { trace_ranges "$D" | ranges_merge; }

# blocks_of FILE...: merged sector ranges of the files' blocks (data and
# extent tree), from the unmounted filesystem.
blocks_of() {
	for _f; do
		debugfs -R "stat /$_f" "/dev/$D" 2>/dev/null |
			sed -n '/^EXTENTS:/,$p' | tr ',' '\n' |
			sed -n 's/.*):\([0-9]*\)\(-\([0-9]*\)\)\{0,1\}.*/\1 \3/p'
	done | awk -v spb=$SPB '{ e = $2 == "" ? $1 : $2; print $1 * spb, (e - $1 + 1) * spb }' |
		ranges_merge
}

# free_runs: sector ranges of the free runs, per group (unmounted);
# free_blocks: the same merged.
free_runs() {
	dumpe2fs "/dev/$D" 2>/dev/null | sed -n 's/^ \{1,\}Free blocks: //p' | tr ',' '\n' |
		awk -v spb=$SPB 'NF { n = split($1, a, "-"); e = n > 1 ? a[2] : a[1]
			print a[1] * spb, (e + 1) * spb }'
}
free_blocks() { free_runs | awk '{ print $1, $2 - $1 }' | ranges_merge; }

remount() { umount $MNT && mount -t ext4 -o "$1" "/dev/$D" $MNT; }

# wait_discarded FILE: wait (up to 20 s) until the traced discards cover
# every range of FILE, then 0.5 s more for anything beyond; sets $WAITED.
wait_discarded() {
	WAITED=0
	while [ -n "$(trace_ranges "$D" | ranges_merge >/tmp/wd; ranges_sub "$1" /tmp/wd)" ] &&
		[ $WAITED -lt 100 ]; do
		sleep 0.2
		WAITED=$((WAITED + 1))
	done
	sleep 0.5
	WAITED="$((WAITED * 2 / 10)).$((WAITED * 2 % 10)) s"
}

# wait_stable: wait (up to 20 s) until some discard was traced and no new
# one for 1 s; sets $WAITED.
wait_stable() {
	_i=0 _same=0 _last=-1
	while [ $_same -lt 5 ] && [ $_i -lt 100 ]; do
		sleep 0.2
		_n=$(trace_ranges "$D" | wc -l)
		if [ "$_n" = "$_last" ] && [ "$_n" != 0 ]; then
			_same=$((_same + 1))
		else
			_same=0
		fi
		_last=$_n _i=$((_i + 1))
	done
	WAITED="$((_i * 2 / 10)).$((_i * 2 % 10)) s"
}

# extend_to_free FREED FREE: what ext4_try_to_trim_range discards for the
# freed ranges: from each freed start to the end of the free run holding it.
extend_to_free() {
	awk 'BEGIN { n = 0 } FILENAME == ARGV[1] { fs[n] = $1; fe[n] = $2; n++; next }
	     { for (i = 0; i < n; i++) if ($1 >= fs[i] && $1 < fe[i]) { print $1, fe[i] - $1; next }
	       print $1, $2 - $1 }' "$2" "$1" | ranges_merge
}

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
cdev_ok "device e4: 64 MiB" e4 size=64
D=$CDEV
ok "mkfs.ext4 -b 4096 (no discard, no lazy init)" \
	mkfs.ext4 -q -F -b $BS -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 "/dev/$D"
mkdir -p $MNT
ok "mount -o discard" mount -t ext4 -o discard "/dev/$D" $MNT
# mke2fs zeroes the last 16 blocks of the device (old RAID metadata), which
# stay free: a first fstrim unmaps them (measured: valid_pages 2081 ->
# 2065), so from here on the device holds data exactly where ext4 has
# blocks in use, and what each step unmaps follows from the block map.
vp=$(cstat "$D" valid_pages)
ok "fstrim the fresh filesystem" fstrim $MNT
diag "fresh filesystem: valid_pages $vp -> $(cstat "$D" valid_pages) after the first fstrim"

# Fragmented files: 4 files appended to in turn, allocated round by round.
r=0
while [ $r -lt 6 ]; do
	for f in A B C D; do
		head -c $(( ((r + $(printf '%d' "'$f")) % 2 + 1) * BS )) /dev/urandom >>$MNT/$f
	done
	sync
	r=$((r + 1))
done
sum_d=$(md5sum <$MNT/D)
sum_b=$(head -c 5000 $MNT/B | md5sum)
ok "umount" umount $MNT
blocks_of A C >/tmp/want
blocks_of B D >/tmp/kept
blocks_of B >/tmp/b0
for f in A B C D; do
	diag "$f: $(debugfs -R "stat /$f" "/dev/$D" 2>/dev/null | sed -n '/^EXTENTS:/,$p' | tr '\n' ' ')"
done
ok "A and C are fragmented (>= 4 separate runs together)" test "$(wc -l </tmp/want)" -ge 4

# --- rm: the deleted files' blocks, nothing else ----------------------------------
ok "mount -o discard" mount -t ext4 -o discard "/dev/$D" $MNT
st0=$(unmap_state "$D")
echo 1 >"/sys/block/$D/ftl/reset_stats"
trace_start
ok "rm A C" rm $MNT/A $MNT/C
before_sync=$(traced | wc -l)
ok "sync" sync
wait_discarded /tmp/want
mounted=$(trace_ranges "$D" | wc -l)
ok "umount" umount $MNT
# Still tracing: what ext4 sent until it was gone counts too.
traced >/tmp/got
diag "discard ranges traced before sync: $before_sync; all of A and C there $WAITED after sync; $mounted before umount, $(trace_ranges "$D" | wc -l) after"
free_blocks >/tmp/free
free_runs >/tmp/runs
is "$(ranges_sub /tmp/want /tmp/got)" "" "rm: every block of A and C was discarded ($(wc -l </tmp/want) runs)"
is "$(cat /tmp/got)" "$(extend_to_free /tmp/want /tmp/runs)" \
	"rm: each discard runs from a freed extent to the end of its free run"
# Every traced range, overlaps included: ext4 may discard a range twice
# (seen on the KASAN kernel), and each time counts.
is "$(cstat "$D" discard_sectors)" "$(trace_ranges "$D" | awk '{ n += $2 } END { print n + 0 }')" \
	"rm: ftlblk counted exactly the traced sectors"
is "$(cstat "$D" pages_discarded)" "$(trace_ranges "$D" | pages_covered)" \
	"rm: pages_discarded counts the flash pages the traced ranges cover whole"
is "$(ranges_nonzero "/dev/$D" /tmp/want)" 0 "rm: the blocks of A and C read back as zeroes"
is "$(ranges_overlap /tmp/got /tmp/kept)" "" "rm: no block of B or D was discarded"
awk '{ print $1, $2 - $1 }' /tmp/want >/tmp/delruns
unmap_expect "$D" /tmp/delruns /tmp/free >/tmp/ue
read -r n full </tmp/ue
is "$(unmap_delta "$st0" "$(unmap_state "$D")") $(cstat "$D" valid_pages_discarded)" "$n $n $full" \
	"rm: ftlblk unmapped exactly the $n blocks of A and C (valid_pages, data_bytes, valid_pages_discarded)"
is "$(ranges_outside /tmp/got /tmp/free)" "" "rm: every discarded block is free afterwards (dumpe2fs)"
if [ "$(cat /tmp/got)" = "$(cat /tmp/want)" ]; then
	diag "rm: discarded exactly the blocks of A and C (all their neighbours are in use)"
else
	diag "rm: discards reached beyond A and C into free space: $(ranges_sub /tmp/got /tmp/want | tr '\n' ' ')"
fi
ok "mount -o discard" mount -t ext4 -o discard "/dev/$D" $MNT

# --- truncate: the freed tail ----------------------------------------------------
# B's tail blocks border blocks A and C freed before: here 6.1 discards more
# than the freed blocks, up to the next block in use.
st0=$(unmap_state "$D")
echo 1 >"/sys/block/$D/ftl/reset_stats"
trace_start
ok "truncate -s 5000 B" truncate -s 5000 $MNT/B
sync
# Unmounting now would drop the queued discards (the work gives up once
# the superblock is no longer active): wait for them while mounted.
wait_stable
mounted=$(trace_ranges "$D" | wc -l)
ok "umount" umount $MNT
traced >/tmp/got_t
diag "truncate: discards settled $WAITED after sync; $mounted ranges before umount, $(trace_ranges "$D" | wc -l) after"
blocks_of B >/tmp/b1
ranges_sub /tmp/b0 /tmp/b1 >/tmp/freed
free_blocks >/tmp/free
free_runs >/tmp/runs
is "$(awk '{ n += $2 - $1 } END { print n }' /tmp/b1) $(ranges_outside /tmp/b1 /tmp/b0)" "$((3 * SPB)) " \
	"truncate: B keeps 3 of its blocks (extent block + 2 data blocks for 5000 bytes)" ||
	diag "B now: $(debugfs -R "stat /B" "/dev/$D" 2>/dev/null | sed -n '/^EXTENTS:/,$p' | tr '\n' ' ')"
is "$(ranges_sub /tmp/freed /tmp/got_t)" "" "truncate: every freed tail block of B was discarded"
is "$(cat /tmp/got_t)" "$(extend_to_free /tmp/freed /tmp/runs)" \
	"truncate: each discard runs from a freed extent to the end of its free run"
is "$(ranges_outside /tmp/got_t /tmp/free)" "" "truncate: the discarded blocks are free afterwards"
is "$(ranges_overlap /tmp/got_t /tmp/b1)" "" "truncate: the blocks B keeps were not discarded"
awk '{ print $1, $2 - $1 }' /tmp/freed >/tmp/delruns
unmap_expect "$D" /tmp/delruns /tmp/free >/tmp/ue
read -r n full </tmp/ue
is "$(unmap_delta "$st0" "$(unmap_state "$D")") $(cstat "$D" valid_pages_discarded)" "$n $n $full" \
	"truncate: ftlblk unmapped exactly the $n freed blocks of B (valid_pages, data_bytes, valid_pages_discarded)"

# --- fstrim: the free blocks; then nothing; after a remount, all again -------------
ok "mount -o nodiscard" mount -t ext4 -o nodiscard "/dev/$D" $MNT
trace_start
ok "fstrim" fstrim -v $MNT
traced >/tmp/got
is "$(cat /tmp/got)" "$(cat /tmp/free)" "fstrim: discarded sectors = the free blocks ($(wc -l </tmp/free) runs)"
trace_start
ok "fstrim again" fstrim -v $MNT
is "$(traced | wc -l)" 0 "fstrim again: nothing sent (every group marked trimmed)"
ok "remount" remount nodiscard
trace_start
ok "fstrim after remount" fstrim -v $MNT
traced >/tmp/got
is "$(cat /tmp/got)" "$(cat /tmp/free)" "fstrim after remount: the trimmed marks are gone, all free blocks again"

# --- data and consistency -----------------------------------------------------------
is "$(md5sum <$MNT/B) $(md5sum <$MNT/D)" "$sum_b $sum_d" "B (its first 5000 bytes) and D read back unchanged"
ok "umount" umount $MNT
ok "e2fsck -fn: the filesystem is consistent" e2fsck -fn "/dev/$D"

trace_stop
ok "remove device e4" cdev_remove e4
ok "rmmod ftlblk" modprobe -r ftlblk
check_dmesg
done_testing
