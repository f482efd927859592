#!/bin/sh
# Crash consistency with discard: ext4 -o discard and vfat -o discard,flush
# on ftlblk with its volatile write cache, power cut at random moments
# while crashload creates, overwrites, renames over, fsyncs and deletes
# files (so blocks are freed, discarded and reallocated all the time).
# After each cut: unmount (errors expected), restore the power, mount
# (journal recovery), fsck clean, and every change whose fsync returned
# before the cut is there - every block of every such file exactly, no
# block of zeroes or of another file (crashload verify).
#
# vfat has no journal: its directory entries and FAT chains reach the
# disk in any order. After a cut fsck.fat finds the dirty bit set,
# clusters allocated to no file, FAT copies that differ (both intact: it
# uses the first), and the file of
# the change in progress may be broken (no atomic rename or delete).
# fat_fsck accepts those, and nothing about a file whose last change was
# fsync'd (the manifest's "C" lines); then it repairs the volume
# (fsck.fat -a), as a boot after a crash would (left broken, a stale chain
# would free clusters a later file owns). crashload runs there without
# files it never syncs (-U: their stale entries would cross-link with
# synced files) and accepts any state of the change in progress (-a). And
# vfat writes a renamed file's directory entry with the
# file's inode, not the directory's, so there crashload fsyncs the file
# again after a rename (-r).
#
# This is the seed's ordering requirement end to end: a discard the
# filesystem sends after freeing blocks must never destroy data it wrote
# there later, across the cache, flushes, write-back, GC and power loss.
#
# CRASH_CUTS (default 6: make check; make crash-test runs 100 and more)
# cuts on ext4, CRASH_VFAT_CUTS (default 2) on vfat; power_cut_mode
# alternates all / random. CRASH_SEED seeds the delays and workloads;
# CRASH_WRITE_CACHE (1) and CRASH_CACHE_MIB (2) configure the device.
# The kitchen sink of make soak (tests/soak/run) adds: CRASH_SIZE_MIB (64),
# CRASH_DEV_PARAMS (more device attributes, e.g. timing=1 and faults),
# CRASH_FSTRIM=1 (fstrim after each cut's checks) and CRASH_TIMES (0): go
# on cutting after CRASH_CUTS until the host has written that many times
# the capacity; then the totals (cuts, faults, pages lost, WAF) are
# printed.
# shellcheck source=lib.sh
. /tests/lib.sh
need_cmd crashload mkfs.ext4 e2fsck mkfs.vfat fsck.fat blkop
CUTS=${CRASH_CUTS:-6}
VCUTS=${CRASH_VFAT_CUTS:-2}
SEED=${CRASH_SEED:-1}
SIZE=${CRASH_SIZE_MIB:-64}
TIMES=${CRASH_TIMES:-0}
FSTRIM=${CRASH_FSTRIM:-0}
# Per cut: mount, run, fsck, verify (and fstrim); plus setup and the
# final checks. Open-ended with CRASH_TIMES.
[ "$TIMES" -gt 0 ] ||
	plan $(((4 + FSTRIM) * CUTS + 4 * VCUTS + 7))

MNT=/tmp/crash-mnt MAN=/tmp/crash.man LOG=/tmp/crash.log
cleanup() {
	grep -q " $MNT " /proc/mounts && umount "$MNT"
	[ -d "$CFS/crash" ] && rmdir "$CFS/crash"
	rm -f "$MAN" "$LOG"
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT
mkdir -p "$MNT"

# A pseudo-random delay in [1, 3) seconds for cut number $1.
delay() {
	awk -v s="$SEED" -v i="$1" 'BEGIN { srand(s * 1000 + i); printf "%.2f", 1 + 2 * rand() }'
}

modprobe ftlblk nr_devices=0
# 64 MiB, a 2 MiB cache: write-back runs all the time, not only at flushes.
# shellcheck disable=SC2086 # CRASH_DEV_PARAMS is a list of attributes
D=$(mkdev crash size="$SIZE" pages_per_block=64 \
	write_cache="${CRASH_WRITE_CACHE:-1}" cache_mib="${CRASH_CACHE_MIB:-2}" \
	${CRASH_DEV_PARAMS:-})
P=/sys/block/$D/ftl
ok "$D: $SIZE MiB, write cache ${CRASH_CACHE_MIB:-2} MiB ${CRASH_DEV_PARAMS:-}" test -b "/dev/$D"

# fat_fsck DEV: fsck.fat -n finds nothing but what any FAT crash leaves
# (above), then fsck.fat -a repairs that.
fat_fsck() {
	# Files whose last change was fsync'd: /NAME lines of fsck.fat.
	_committed=$(awk '{ last[$2] = $1 } END { for (n in last) if (last[n] == "C") print "/" n }' "$MAN")
	_out=$(fsck.fat -n "$1" 2>&1)
	_bad=$(printf '%s\n' "$_out" | awk -v c="$_committed" '
		BEGIN { n = split(c, a, "\n"); for (i = 1; i <= n; i++) committed[a[i]] = 1 }
		/^\// { name = $1; if (name in committed) { print; next } ; next }
		/^ / && name != "" { next }
		{ name = "" }
		/^fsck\.fat [0-9.]+ |^Dirty bit is set|Automatically removing dirty bit|^Reclaimed [0-9]+ unused clusters|^Leaving filesystem unchanged|^\/dev\/[^:]*: [0-9]+ files, |^FATs differ but appear to be intact|^ +Using first FAT\.$|^ *$/ { next }
		{ print }')
	if [ -n "$_bad" ]; then
		printf '%s\n' "$_out"
		return 1
	fi
	fsck.fat -a "$1" >/dev/null 2>&1
	[ $? -le 1 ] || { echo "fsck.fat -a failed"; return 1; }
}

# cut_once FS N MOUNTOPTS RUNOPTS VERIFYOPTS FSCK...: one cycle on a
# mounted filesystem.
cut_once() {
	_fs=$1 _n=$2 _opts=$3 _runopts=$4 _vopts=$5
	shift 5
	# After a failed mount the workload would run on the bare directory
	# (tmpfs), where no cut ever stops it: fail this cut's points instead.
	if ! grep -q " $MNT " /proc/mounts; then
		for _p in "mount after the cut (recovery)" "$1 clean" "mount again" \
			"every fsync'd change intact, nothing deleted came back"; do
			fail "$_fs cut $_n: $_p (not run: $_fs is not mounted)"
		done
		return
	fi
	_mode=all
	[ $((_n % 2)) = 0 ] && _mode=random
	echo "$_mode" > "$P/power_cut_mode"
	_lost0=$(st "$D" pages_lost_at_power_cut)
	# shellcheck disable=SC2086 # options split on purpose
	crashload run "$MNT" "$MAN" -s "$((SEED * 1000 + _n))" $_runopts > "$LOG" 2>&1 &
	_pid=$!
	sleep "$(delay "$_n")"
	# Then at the next moment the cache holds something, so that the cut
	# has updates to lose. Shell builtins only: the workload fsyncs every
	# few milliseconds, and a poll that forks (st) would cut at a random
	# moment after its sample, half the time with an empty cache.
	_w=0
	while read -r _cached < "$P/cached_pages" && [ "$_cached" = 0 ] &&
		kill -0 "$_pid" 2>/dev/null && [ $_w -lt 100000 ]; do
		_w=$((_w + 1))
	done
	echo 1 > "$P/power_cut"
	wait "$_pid"
	_ran=$(cat "$LOG")
	umount "$MNT" 2>/dev/null || umount -l "$MNT"
	echo 0 > "$P/power_cut"
	# The cut dropped acknowledged writes: unless a flush sent while the
	# power was off failed already (the unmount's, on some kernels), the
	# first flush after the restore reports it (docs/semantics.md). Take
	# that report here, as a user restoring the power would, so that the
	# mount's own first flush is not the one to fail: fsync the device
	# until it succeeds (an fsync may also fail, without sending a flush,
	# for the unmounted filesystem's writes that failed while off).
	_ack=
	for _i in 1 2 3 4; do
		_r=$(blkop fsync "/dev/$D")
		_ack="$_ack $_r"
		[ "$_r" = ok ] && break
	done
	diag "$_fs cut $_n ($_mode, $_cached pages cached, $(($(st "$D" pages_lost_at_power_cut) - _lost0)) lost; fsyncs after the restore:$_ack): $_ran"
	ok "$_fs cut $_n: mount after the cut (recovery)" mount -t "$_fs" -o "$_opts" "/dev/$D" "$MNT"
	umount "$MNT"
	ok "$_fs cut $_n: $1 clean" "$@" "/dev/$D"
	ok "$_fs cut $_n: mount again" mount -t "$_fs" -o "$_opts" "/dev/$D" "$MNT"
	# shellcheck disable=SC2086 # options split on purpose
	_v=$(crashload verify "$MNT" "$MAN" $_vopts 2>&1)
	_s=$?
	diag "$_v"
	[ "$_s" = 0 ] || tail -n 6 "$MAN" | sed 's/^/#   manifest: /'
	is "$_s" 0 "$_fs cut $_n: every fsync'd change intact, nothing deleted came back"
	# The kitchen sink cuts hundreds of times: the files crashload never
	# syncs (u*) that cuts left behind would fill the filesystem.
	[ "$FSTRIM" = 0 ] ||
		ok "$_fs cut $_n: unsynced leftovers removed, fstrim" \
			sh -c "rm -f $MNT/u* && fstrim $MNT"
}

# written_times: how many times the capacity the host has written.
written_times() {
	echo $(($(st "$D" host_pages_written) / $(st "$D" logical_pages)))
}

# ---- ext4 -o discard ---------------------------------------------------
ok "mkfs.ext4" mkfs.ext4 -q -F -b 4096 "/dev/$D"
mount -t ext4 -o discard "/dev/$D" "$MNT"
rm -f "$MAN"
n=1
while [ $n -le "$CUTS" ] || [ "$(written_times)" -lt "$TIMES" ]; do
	cut_once ext4 $n discard "" "" e2fsck -fn
	n=$((n + 1))
	# Open-ended: stop at the first cut the filesystem did not survive.
	[ "$TIMES" = 0 ] || grep -q " $MNT " /proc/mounts || break
done
umount "$MNT"
ecuts=$((n - 1))
if [ "$TIMES" -gt 0 ]; then
	diag "totals: $ecuts cuts, host wrote $(written_times) x the capacity ($(st "$D" host_pages_written) pages), $(st "$D" pages_lost_at_power_cut) cached pages lost at cuts, program failures $(st "$D" program_failures), erase failures $(st "$D" erase_failures), bad blocks $(st "$D" bad_blocks), WAF $(st "$D" waf), wear leveling runs $(st "$D" wl_runs), discards $(st "$D" discard_requests)"
	ok "at least $TIMES x the capacity written ($(written_times))" \
		test "$(written_times)" -ge "$TIMES"
fi
lost=$(st "$D" pages_lost_at_power_cut)
ok "ext4: $ecuts cuts lost $lost cached page updates (the test had something to lose)" \
	test "$lost" -gt 0
ok "ext4: discards reached the device ($(st "$D" discard_requests) requests)" \
	test "$(st "$D" discard_requests)" -gt 0

# ---- vfat -o discard,flush -------------------------------------------------
ok "mkfs.vfat" mkfs.vfat "/dev/$D"
mount -t vfat -o discard,flush "/dev/$D" "$MNT"
rm -f "$MAN"
n=1
while [ $n -le "$VCUTS" ]; do
	cut_once vfat $n discard,flush "-r -U" -a fat_fsck
	n=$((n + 1))
done
umount "$MNT"
is "$(st "$D" power_cuts)" $((ecuts + VCUTS)) "power_cuts counts every cut"

check_dmesg "no kernel warnings (I/O and ext4 errors after a cut are expected)" \
	'WARNING:|BUG:|Oops|general protection|Call Trace|refcount_t:|corruption'
done_testing
