#!/bin/sh
# The guest half of `make demo` (started by demo/run via tests/vm/run
# --script). For each regime it loads ftlblk afresh (a new, empty flash
# device), makes a filesystem, mounts it with or without -o discard, runs
# the same demo-workload (same seed -> same creates and deletes) and keeps
# what the device reported:
#   /out/REGIME.csv    statistics sampled during the run (demo-workload)
#   /out/REGIME.final  every file of /sys/block/ftlblk0/ftl after umount,
#                      as NAME=VALUE, plus the regime's settings and times
#   /out/traces/REGIME.blkparse  every request the device was given, from
#                      mkfs to umount (blktrace, dispatch events, blkparse
#                      text), for `ftlsim --trace` to replay
#   /out/traces/REGIME.complete  with TIMING=1: every request's modeled
#                      latency over the same span, one ftlblk:ftlblk_complete
#                      event a line ("ftlblk0 op=write sector=S nr_sectors=N
#                      pages=P latency_ns=L")
# Progress lines go to stdout (the results channel, shown live by demo/run).
#
# Environment (from demo/run): SIZE OP POLICY WRITES FILL SEED FS
# FSTRIM_EVERY TIMING (the module's timing parameter: 1 = requests complete
# when the modeled NAND flash would, 0 = RAM speed).
set -u

SIZE=${SIZE:-128} OP=${OP:-7} POLICY=${POLICY:-greedy} WRITES=${WRITES:-4}
FILL=${FILL:-80} SEED=${SEED:-1} FS=${FS:-vfat} FSTRIM_EVERY=${FSTRIM_EVERY:-0.5}
TIMING=${TIMING:-1}
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
trace_abort() { kill -INT "$btpid"; wait "$btpid"; lat_stop "$1"; }

# With TIMING=1, record each request's modeled latency (the tracepoint
# ftlblk:ftlblk_complete) over the same span as blktrace: a reader drains
# the ftrace ring buffer (trace_pipe) while the regime runs; afterwards
# every CPU's buffer must be empty and have lost nothing.
TR=/sys/kernel/tracing
EV=$TR/events/ftlblk/ftlblk_complete
lat_start() {
	[ "$TIMING" = 1 ] || return 0
	echo 0 >"$TR/tracing_on"
	echo 8192 >"$TR/buffer_size_kb"		# per CPU
	: >"$TR/trace"				# empty the buffers
	echo 1 >"$EV/enable"
	echo 1 >"$TR/tracing_on"
	cat "$TR/trace_pipe" >"/tmp/lat/$1.trace" &
	latpid=$!
	# the partition scan's reads at modprobe were timed but not traced
	timed0=$(cat "$STAT/requests_timed")
}
lat_stop() {
	[ "$TIMING" = 1 ] || return 0
	echo 0 >"$EV/enable"
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
	[ "$lost" = 0 ] || fail "$1: ftlblk_complete events lost or unread: $lost"
	grep -o 'ftlblk[0-9]* op=.*' "/tmp/lat/$1.trace" >"/out/traces/$1.complete" ||
		fail "$1: no ftlblk_complete events"
	rm -f "/tmp/lat/$1.trace"
}

# regime FS MODE   (MODE: nodiscard | discard | fstrim)
regime() {
	fs=$1 mode=$2 name=$1-$2
	mopt='' trim=0
	# The kernel's default FAT iocharset (ascii) is not in the guest.
	[ "$fs" = vfat ] && mopt=iocharset=utf8
	[ "$mode" = discard ] && mopt=${mopt:+$mopt,}discard
	[ "$mode" = fstrim ] && trim=$FSTRIM_EVERY

	if ! modprobe ftlblk nr_devices=1 size="$SIZE" op_percent="$OP" \
		gc_policy="$POLICY" discard=1 timing="$TIMING"; then
		fail "$name: modprobe ftlblk: $(dmesg | grep 'ftlblk: ' | tail -n 1)"
		return
	fi
	[ -b "$DEV" ] || { fail "$name: no $DEV"; rmmod ftlblk; return; }
	trace_start "$name"
	lat_start "$name"
	case $fs in
	vfat)	# 4 KiB clusters = one flash page, so a freed cluster is a
		# whole page the device can drop (mkfs.fat aligns the data area
		# to the cluster size); mkfs.fat itself sends no discard.
		# (Its stderr only complains that the guest has no iconv.)
		mkfs.vfat -s 8 "$DEV" >/tmp/mkfs.log 2>&1 ||
			! cat /tmp/mkfs.log ;;
	ext4)	# nodiscard: the device is new (all unmapped) anyway, and the
		# no-discard regime must not see a single discard; no lazy init
		# (a kernel thread writing inode tables in the middle).
		mkfs.ext4 -q -F -b 4096 -E nodiscard,lazy_itable_init=0,lazy_journal_init=0 \
			"$DEV" ;;
	*)	fail "unknown FS $fs"; trace_abort "$name"; rmmod ftlblk; return ;;
	esac || { fail "$name: mkfs.$fs"; trace_abort "$name"; rmmod ftlblk; return; }
	if ! mount -t "$fs" ${mopt:+-o "$mopt"} "$DEV" "$MNT"; then
		fail "$name: mount -t $fs ${mopt:+-o $mopt}"
		trace_abort "$name"
		rmmod ftlblk
		return
	fi
	rm -f /tmp/workload.sum
	t0=$(date +%s)
	demo-workload -s "$SEED" -f "$FILL" -w "$WRITES" -t "$trim" \
		-d "$DEV" -S "$STAT" -o "/out/$name.csv" -n 400 -R /tmp/workload.sum \
		-l "$name" "$MNT" ||
		fail "$name: workload"
	umount "$MNT" || fail "$name: umount"
	t1=$(date +%s)
	trace_stop "$name"
	lat_stop "$name"
	{
		echo "regime=$name"
		echo "fs=$fs"
		echo "mount_options=${mopt:-defaults}"
		echo "fstrim_every=$trim"
		echo "size_mib=$SIZE"
		echo "op_percent=$OP"
		echo "fill_percent=$FILL"
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

say "device ${SIZE} MiB, op ${OP}%, gc ${POLICY}, timing ${TIMING}; fill ${FILL}%, writes ${WRITES}x capacity, seed ${SEED}, fstrim every ${FSTRIM_EVERY}x capacity"
for fs in $FS; do
	for mode in nodiscard discard fstrim; do
		regime "$fs" "$mode"
	done
done
dmesg >/out/dmesg.txt
if dmesg | grep -E 'I/O error|FAT-fs \(.*\): error|EXT4-fs error'; then
	fail "filesystem or I/O errors in dmesg"
fi
exit $status
