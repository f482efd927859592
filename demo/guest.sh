#!/bin/sh
# The guest half of `make demo` and `make study` (started by demo/run via
# tests/vm/run --script). For each regime in REGIMES it loads ftlblk afresh
# (a new, empty flash device), makes a filesystem, mounts it with the
# regime's discard policy, runs the same demo-workload (same seed -> same
# creates and deletes) and keeps what the device reported:
#   /out/REGIME.csv    statistics sampled during the run (demo-workload)
#   /out/REGIME.final  every file of /sys/block/ftlblk0/ftl after umount,
#                      as NAME=VALUE, plus the regime's settings, the
#                      filesystem's usage before umount and the kernel
#   /out/traces/REGIME.blkparse  every request the device was given, from
#                      mkfs to umount (blktrace, dispatch events, blkparse
#                      text), for `ftlsim --trace` to replay
#   /out/traces/REGIME.requests  every request the device accepted over
#                      the same span, one ftlblk:ftlblk_request event a line
#                      ("ftlblk0 op=write sector=S nr_sectors=N flags=F
#                      class=C"):
#                      the trace ftlsim replays (--trace-format ftlblk); unlike
#                      blktrace's it names write-zeroes and secure erase
#   /out/traces/REGIME.discard  every discard range the device received
#                      over the same span, one ftlblk:ftlblk_discard event a
#                      line ("ftlblk0 sector=S nr_sectors=N")
#   /out/traces/REGIME.complete  with TIMING=1: every request's modeled
#                      latency over the same span, one ftlblk:ftlblk_complete
#                      event a line ("ftlblk0 op=write sector=S nr_sectors=N
#                      pages=P latency_ns=L")
# Progress lines go to stdout (the results channel, shown live by demo/run).
#
# A regime is FS-MODE: FS vfat, ext4, xfs, btrfs or f2fs; MODE one of
#   nodiscard      mounted without online discard (explicitly "nodiscard"
#                  where the filesystem has the option: Btrfs discards
#                  asynchronously by default on SSDs since 6.2, F2FS always)
#   discard        online discard: -o discard (vfat, ext4, xfs); F2FS's own
#                  default (it discards unless told nodiscard)
#   discard-sync, discard-async   Btrfs's -o discard=sync / discard=async
#   fstrim         as nodiscard, plus fstrim every FSTRIM_EVERY x capacity
# Every mkfs is told not to discard (the device is new, all unmapped): the
# regimes differ only in what the mounted filesystem sends. The regimes
# whose filesystem discards in the background (btrfs-discard-async: 120 s
# after a block group first has freed space, then rate-limited; F2FS's
# discard thread, which waits for the device to be idle) stay mounted and
# idle for IDLE seconds after the workload before the umount, as a real
# system would between bursts; the device's discard counters at the
# workload's end are kept beside the final ones (workload_end_*).
#
# Environment (from demo/run): REGIMES SIZE OP POLICY WRITES FILL FILL_OF SEED STEADY
# FSTRIM_EVERY IDLE (s) READS (KiB per read of the reader beside the writer, 0 for
# none) TIMING (the module's timing parameter: 1 = requests complete when
# the modeled NAND flash would, 0 = RAM speed).
set -u

SIZE=${SIZE:-128} OP=${OP:-7} POLICY=${POLICY:-greedy} WRITES=${WRITES:-4}
FILL=${FILL:-80} SEED=${SEED:-1} FSTRIM_EVERY=${FSTRIM_EVERY:-0.5}
TIMING=${TIMING:-1} READS=${READS:-0} FILL_OF=${FILL_OF:-fs} IDLE=${IDLE:-0}
STEADY=${STEADY:-0}
# STEADY=1: stop at the first pass within 5 % of the one before (-P 0: off)
steady_pct=0
[ "$STEADY" = 1 ] && steady_pct=5
REGIMES=${REGIMES:-vfat-nodiscard vfat-discard vfat-fstrim}
MNT=/mnt/demo
DEV=/dev/ftlblk0
STAT=/sys/block/ftlblk0/ftl
status=0

say() { echo "demo: $*"; }
fail() { echo "demo: FAILED: $*"; status=1; }

mkdir -p "$MNT" /out/traces /tmp/bt /tmp/lat

# Record what reaches the device from before mkfs: dispatched requests (D,
# what queue_rq receives; replayed by ftlsim they give exactly the module's
# counters, tests/vm/host/demo-smoke.sh). Only issue events are collected,
# so the buffers do not overflow.
trace_start() {
	blktrace -d "$DEV" -a issue -b 1024 -n 8 -D /tmp/bt -o "$1" \
		>"/tmp/bt/$1.log" 2>&1 &
	btpid=$!
	# blktrace has started when its per-CPU files exist.
	i=0
	until [ -e "/tmp/bt/$1.blktrace.0" ] || [ $i -ge 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
trace_stop() {
	kill -INT "$btpid" && wait "$btpid"
	if grep -qE 'dropped [1-9]|You have [1-9]' "/tmp/bt/$1.log"; then
		fail "$1: blktrace dropped events: $(grep -E 'dropped|You have' "/tmp/bt/$1.log")"
	fi
	blkparse -q -i "$1" -D /tmp/bt -o "/out/traces/$1.blkparse" >/dev/null ||
		fail "$1: blkparse"
	rm -f /tmp/bt/"$1".blktrace.*
}
trace_abort() { kill -INT "$btpid"; wait "$btpid"; ev_stop "$1"; }

# Record the device's own view over the same span as blktrace: every
# request it accepted (ftlblk:ftlblk_request), every
# discard range it received (ftlblk:ftlblk_discard) and, with TIMING=1,
# each request's modeled latency (ftlblk:ftlblk_complete). A reader drains
# the ftrace ring buffer (trace_pipe) while the regime runs; afterwards
# every CPU's buffer must be empty and have lost nothing.
TR=/sys/kernel/tracing
EVS="$TR/events/ftlblk/ftlblk_request $TR/events/ftlblk/ftlblk_discard"
[ "$TIMING" = 1 ] && EVS="$EVS $TR/events/ftlblk/ftlblk_complete"
ev_start() {
	echo 0 >"$TR/tracing_on"
	echo 8192 >"$TR/buffer_size_kb"		# per CPU
	: >"$TR/trace"				# empty the buffers
	for e in $EVS; do echo 1 >"$e/enable"; done
	echo 1 >"$TR/tracing_on"
	cat "$TR/trace_pipe" >"/tmp/lat/$1.trace" &
	latpid=$!
	# the partition scan's reads at modprobe were timed but not traced
	timed0=$(cat "$STAT/requests_timed")
}
ev_stop() {
	for e in $EVS; do echo 0 >"$e/enable"; done
	i=0	# "entries" counts what has not been read yet
	while grep -q '^entries: [1-9]' "$TR"/per_cpu/cpu*/stats && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 0.5
	# TERM (a script's background jobs ignore INT); no "Terminated" notice
	kill "$latpid" && wait "$latpid" 2>/dev/null
	lost=$(cat "$TR"/per_cpu/cpu*/stats |
		awk '/^(entries|overrun|dropped events):/ { s += $NF } END { print s + 0 }')
	[ "$lost" = 0 ] || fail "$1: ftlblk trace events lost or unread: $lost"
	grep -o 'ftlblk_request: ftlblk[0-9]* op=.*' "/tmp/lat/$1.trace" |
		sed 's/^ftlblk_request: //' >"/out/traces/$1.requests"
	[ -s "/out/traces/$1.requests" ] || fail "$1: no ftlblk_request events"
	# (no discard at all is a result: the nodiscard regimes)
	grep -o 'ftlblk_discard: ftlblk[0-9]* sector=.*' "/tmp/lat/$1.trace" |
		sed 's/^ftlblk_discard: //' >"/out/traces/$1.discard"
	if [ "$TIMING" = 1 ]; then
		grep -o 'ftlblk_complete: ftlblk[0-9]* op=.*' "/tmp/lat/$1.trace" |
			sed 's/^ftlblk_complete: //' >"/out/traces/$1.complete"
		[ -s "/out/traces/$1.complete" ] || fail "$1: no ftlblk_complete events"
	fi
	rm -f "/tmp/lat/$1.trace"
}

# mkfs_of FS: format $DEV without discarding (see the header)
mkfs_of() {
	case $1 in
	vfat)	# 4 KiB clusters = one flash page, so a freed cluster is a
		# whole page the device can drop (mkfs.fat aligns the data area
		# to the cluster size); mkfs.fat itself sends no discard. Over
		# 256 MiB that is more clusters than FAT16 holds (65524):
		# FAT32, which mkfs.fat would only choose above 512 MiB.
		# (Its stderr only complains that the guest has no iconv.)
		fat=16
		[ "$SIZE" -gt 256 ] && fat=32
		mkfs.vfat -F "$fat" -s 8 "$DEV" >/tmp/mkfs.log 2>&1 ||
			! cat /tmp/mkfs.log ;;
	ext4)	# no lazy init (a kernel thread writing inode tables in the
		# middle)
		mkfs.ext4 -q -F -b 4096 -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 \
			"$DEV" ;;
	# (their modules first: mkfs.btrfs registers the device with it)
	xfs)	modprobe -q xfs; mkfs.xfs -q -f -K "$DEV" ;;
	btrfs)	modprobe -q btrfs; mkfs.btrfs -q -f -K "$DEV" >/dev/null ;;
	f2fs)	modprobe -q f2fs; mkfs.f2fs -q -f -t 0 "$DEV" >/dev/null ;;
	*)	echo "unknown filesystem $1"; return 1 ;;
	esac
}

# options_of FS MODE: the mount options of a regime (header)
options_of() {
	o=''
	# The kernel's default FAT iocharset (ascii) is not in the guest.
	[ "$1" = vfat ] && o=iocharset=utf8
	case $2 in
	nodiscard|fstrim) [ "$1" = vfat ] || o=nodiscard ;;	# FAT has no such option
	discard) [ "$1" = f2fs ] || o=${o:+$o,}discard ;;	# F2FS: its default
	discard-sync) o=discard=sync ;;
	discard-async) o=discard=async ;;
	*) return 1 ;;
	esac
	echo "$o"
}

# regime FS-MODE
regime() {
	name=$1 fs=${1%%-*} mode=${1#*-}
	trim=0
	[ "$mode" = fstrim ] && trim=$FSTRIM_EVERY
	mopt=$(options_of "$fs" "$mode") || { fail "$name: unknown regime"; return; }

	if ! modprobe ftlblk nr_devices=1 size="$SIZE" op_percent="$OP" \
		gc_policy="$POLICY" discard=1 timing="$TIMING"; then
		fail "$name: modprobe ftlblk: $(dmesg | grep 'ftlblk: ' | tail -n 1)"
		return
	fi
	[ -b "$DEV" ] || { fail "$name: no $DEV"; rmmod ftlblk; return; }
	trace_start "$name"
	ev_start "$name"
	mkfs_of "$fs" || { fail "$name: mkfs.$fs"; trace_abort "$name"; rmmod ftlblk; return; }
	if ! mount -t "$fs" ${mopt:+-o "$mopt"} "$DEV" "$MNT"; then
		fail "$name: mount -t $fs ${mopt:+-o $mopt}"
		trace_abort "$name"
		rmmod ftlblk
		return
	fi
	mounted=$(awk -v m="$MNT" '$2 == m { print $4 }' /proc/mounts)
	rm -f /tmp/workload.sum
	t0=$(date +%s)
	demo-workload -s "$SEED" -f "$FILL" -b "$FILL_OF" -w "$WRITES" -t "$trim" -r "$READS" \
		-d "$DEV" -S "$STAT" -o "/out/$name.csv" -n 400 -R /tmp/workload.sum \
		-P "$steady_pct" \
		-l "$name" "$MNT" ||
		fail "$name: workload"
	for c in discard_requests pages_discarded valid_pages_discarded valid_pages; do
		echo "workload_end_$c=$(cat "$STAT/$c")"
	done >/tmp/workload_end
	idle=0
	case $name in btrfs-discard-async|f2fs-discard) idle=$IDLE ;; esac
	if [ "$idle" -gt 0 ]; then
		say "$name: idle for $idle s (background discard)"
		sleep "$idle"
	fi
	# what the filesystem still uses (data and metadata), KiB
	used_kib=$(df -P -k "$MNT" | awk 'NR == 2 { print $3 }')
	[ -n "$used_kib" ] || { fail "$name: df $MNT"; used_kib=0; }
	umount "$MNT" || fail "$name: umount"
	t1=$(date +%s)
	trace_stop "$name"
	ev_stop "$name"
	{
		echo "regime=$name"
		echo "fs=$fs"
		echo "mount_options=${mopt:-defaults}"
		echo "mounted_options=$mounted"
		echo "fs_used_bytes=$((used_kib * 1024))"
		echo "kernel=$(uname -r)"
		echo "reads_kib=$READS"
		echo "idle_s=$idle"
		cat /tmp/workload_end
		echo "fstrim_every=$trim"
		echo "size_mib=$SIZE"
		echo "op_percent=$OP"
		echo "fill_percent=$FILL"
		echo "fill_of=$FILL_OF"
		echo "writes=$WRITES"
		echo "seed=$SEED"
		echo "page_size=$(cat /sys/block/ftlblk0/queue/physical_block_size)"
		echo "wall_s=$((t1 - t0))"
		[ "$TIMING" = 1 ] && echo "requests_timed_before_trace=$timed0"
		cat /tmp/workload.sum
		for f in "$STAT"/*; do
			v=$(cat "$f" 2>/dev/null) || continue	# reset_stats
			echo "${f##*/}=$v"
		done
	} >"/out/$name.final"
	say "$name: WAF $(cat "$STAT/waf"), $((t1 - t0)) s"
	rmmod ftlblk || fail "$name: rmmod ftlblk"
}

say "device ${SIZE} MiB, op ${OP}%, gc ${POLICY}, timing ${TIMING}; fill ${FILL}%, writes ${WRITES}x capacity, seed ${SEED}, fstrim every ${FSTRIM_EVERY}x capacity, reader ${READS} KiB every 10 ms (0: none); kernel $(uname -r)"
for r in $REGIMES; do
	regime "$r"
done
dmesg >/out/dmesg.txt
if dmesg | grep -E 'I/O error|FAT-fs \(.*\): error|EXT4-fs error|XFS \(.*\): (Corruption|metadata I/O error)|BTRFS (error|critical)|F2FS-fs \(.*\): .*(error|inconsistent)'; then
	fail "filesystem or I/O errors in dmesg"
fi
exit $status
