#!/bin/bash
# Guest side of `make bench`: the same fio jobs on ftlblk and on its peers
# in one boot, so every ratio compares like with like (same kernel, same
# TCG slowdown, same moment). Every job runs BENCH_ROUNDS times; within a
# round the devices take turns (in a rotating order), so slow drift of the
# host hits all of them alike. A ratio is computed per round and printed as
# the median with the lowest and highest round beside it: a spread wider
# than the distance from 1 means the difference is noise.
#
# ftlblk is loaded exactly as `modprobe ftlblk` configures it (defaults,
# so timing=0: RAM speed), the peers as their documentation sets up a RAM
# disk of the same size, and null_blk without memory as the blk-mq floor;
# the 1 MiB jobs also run on a second brd filled in random order
# (brd-scattered), whose pages lie in memory as ftlblk's do.
# A second part runs a timing=1 device and compares
# fio with ftlsim --timing's prediction for the same workload; the part
# "placement" measures WAF of a hinted hot/cold mix per GC policy and
# placement, beside ftlsim; the part "layout" reads fresh ftlblk devices
# filled in LBA and in random order against both brds.
# BENCH_SHARDS=N adds ftlblk1, the same device with shards=N (configfs),
# to every job but the timed ones, for sharding's cost and gain in the
# same boot.
set -euo pipefail
SIZE_MIB=${BENCH_SIZE_MIB:-256}
RUNTIME=${BENCH_RUNTIME:-5}
ROUNDS=${BENCH_ROUNDS:-5}
# fio jobs of the multi-job runs: one per vCPU (VM_CPUS), at least two.
NJOBS=$(nproc)
[ "$NJOBS" -ge 2 ] || NJOBS=2
# 1j: the same job with one fio job instead of NJOBS, for the scaling ratio.
RW_JOBS=${BENCH_JOBS:-randwrite-4k randread-4k randwrite-4k-1j randread-4k-1j write-1m read-1m}
# BENCH_PARTS: which parts run (all by default; a subset for quick looks)
PARTS=${BENCH_PARTS:-rounds discard steady timed memory placement layout}
part() {	# NAME: is the part selected?
	[[ " $PARTS " == *" $1 "* ]]
}
SHARDS=${BENCH_SHARDS:-}
FTLDEVS="ftlblk0${SHARDS:+ ftlblk1}"	# ftlblk devices measured
# nullb1: null_blk with memory_backed=0, the blk-mq floor (no data at all)
DEVS="$FTLDEVS ram0 nullb0 nullb1 zram0"
# ram1: brd again, each 4 KiB block first written in random order. brd
# takes a page at a block's first write and then writes in place, so ram0
# (filled in LBA order) keeps a 1 MiB range in neighbouring pages, ram1
# in scattered ones, as ftlblk's are once random writes have moved its
# flash pages to recycled ones. Under TCG that placement alone costs a
# 1 MiB copy about a third (docs/performance.md), so the 1 MiB jobs also
# run on ram1: ftlblk / ram1 is the comparison with the layout alike.
SCATTERED_JOBS="write-1m read-1m"
DISCARD_DEVS="$FTLDEVS nullb0 zram0"	# brd has no discard
RAW=/tmp/bench-raw.txt			# round dev job value
: >"$RAW"

fio_rw() {	# DEV JOB -> IOPS (reads) or write IOPS
	local rw bs jobs=$NJOBS
	case $2 in
	randwrite-4k*) rw=randwrite bs=4k ;;
	randread-4k*) rw=randread bs=4k ;;
	write-1m) rw=write bs=1m ;;
	read-1m) rw=read bs=1m ;;
	esac
	case $2 in *-1j) jobs=1 ;; esac
	fio --eta=never --name="$2" --filename="/dev/$1" --rw=$rw --bs=$bs \
		--direct=1 --ioengine=libaio --iodepth=16 --numjobs=$jobs \
		--group_reporting --size=${SIZE_MIB}M --time_based \
		--runtime="$RUNTIME" --ramp_time=1 --randrepeat=0 --norandommap \
		--output-format=terse --terse-version=3 2>/dev/null |
		awk -F';' -v rw="$rw" '{ print (rw ~ /read/) ? $8 : $49 }'
}

fill() {	# DEV: write every byte once (reads hit data; ftlblk is full)
	fio --eta=never --name=fill --filename="/dev/$1" --rw=write --bs=1m \
		--direct=1 --ioengine=libaio --iodepth=8 --size=${SIZE_MIB}M \
		--output-format=terse >/dev/null 2>&1
}

# DEV: write every 4 KiB block once, in random order (fio's random map)
fill_scattered() {
	fio --eta=never --name=fill --filename="/dev/$1" --rw=randwrite \
		--bs=4k --direct=1 --ioengine=libaio --iodepth=16 \
		--size=${SIZE_MIB}M --randrepeat=0 --output-format=terse \
		>/dev/null 2>&1
}

job_devs() {	# JOB -> the devices it runs on
	echo "$DEVS"
	[[ " $SCATTERED_JOBS " == *" $1 "* ]] && echo ram1
	return 0
}

now_us() {
	echo $((${EPOCHREALTIME/./}))
}

# Discard timings in milliseconds, on a freshly filled device each time:
# one BLKDISCARD of the whole device, and the whole device in 1 MiB
# discards one after the other (what fstrim sends for fragmented free
# space).
discard_whole() {
	local t0
	fill "$1"
	t0=$(now_us)
	blkdiscard "/dev/$1"
	echo $((($(now_us) - t0) / 1000))
}

discard_1m() {
	local t0
	fill "$1"
	t0=$(now_us)
	fio --eta=never --name=trim --filename="/dev/$1" --rw=trim --bs=1m \
		--ioengine=sync --size=${SIZE_MIB}M >/dev/null 2>&1
	echo $((($(now_us) - t0) / 1000))
}

ftl_stat() {	# NAME [DEV]: a statistic of ftlblk0, or of DEV
	cat "/sys/block/${2:-ftlblk0}/ftl/$1"
}

# nullb1 through null_blk's configfs: nullb0's queues, no memory behind it,
# so a job on it costs the blk-mq path alone. (Newer kernels name the disk
# after the directory, older ones nullb<index>: nullb1 either way.)
null_floor() {
	local d=/sys/kernel/config/nullb/nullb1
	mkdir "$d"
	echo "$SIZE_MIB" >"$d/size"
	echo 0 >"$d/memory_backed"
	echo "$(nproc)" >"$d/submit_queues"
	echo 1 >"$d/power"
	[ -b /dev/nullb1 ] || { echo "bench: null_blk floor is not nullb1" >&2; exit 1; }
}

setup() {
	modprobe ftlblk size="$SIZE_MIB"
	modprobe brd rd_nr=2 rd_size=$((SIZE_MIB * 1024))
	modprobe null_blk nr_devices=1 memory_backed=1 discard=1 gb=1 \
		submit_queues="$(nproc)"
	null_floor
	modprobe zram num_devices=1
	echo "${SIZE_MIB}M" >/sys/block/zram0/disksize
	if [ -n "$SHARDS" ]; then
		mkdir /sys/kernel/config/ftlblk/bench-sharded
		echo "$SIZE_MIB" >/sys/kernel/config/ftlblk/bench-sharded/size
		echo "$SHARDS" >/sys/kernel/config/ftlblk/bench-sharded/shards
		echo 1 >/sys/kernel/config/ftlblk/bench-sharded/power
		echo "ftlblk1: shards=$(ftl_stat shards ftlblk1), otherwise ftlblk0's defaults"
	fi
	echo "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource), $(nproc) vCPUs, $NJOBS fio jobs"
	echo "ftlblk0: $(cat /sys/block/ftlblk0/queue/nr_requests) requests," \
		"scheduler $(cat /sys/block/ftlblk0/queue/scheduler)," \
		"$(ls /sys/block/ftlblk0/mq | wc -l) hardware queues," \
		"max_hw_sectors_kb $(cat /sys/block/ftlblk0/queue/max_hw_sectors_kb)"
}

rotate() {	# ROUND WORDS... -> the words rotated left by ROUND
	local r=$1 i
	shift
	local words=("$@")
	for ((i = 0; i < $#; i++)); do
		printf '%s ' "${words[$(((i + r) % $#))]}"
	done
}

written() {	# [DEV] -> ftlblk0's (DEV's) host and NAND page writes so far
	echo "$(ftl_stat host_pages_written "$@") $(ftl_stat nand_pages_written "$@")"
}

waf_since() {	# "HOST NAND" from written() [DEV] -> 1000 x the WAF since
	local host nand
	set -- $1 $(written "${2:-ftlblk0}")
	host=$(($3 - $1)) nand=$(($4 - $2))
	echo $((nand * 1000 / (host ? host : 1)))
}

run_job() {	# ROUND DEV JOB: one fio job, and ftlblk's WAF during a write job
	local r=$1 d=$2 job=$3 w0
	[[ $d == ftlblk* ]] && w0=$(written "$d")
	echo "$r $d $job $(fio_rw "$d" "$job")" >>"$RAW"
	if [[ $d == ftlblk* ]] && [[ $job == *write* ]]; then
		echo "$r $d waf-$job $(waf_since "$w0" "$d")" >>"$RAW"
	fi
}

run_round() {	# ROUND
	local r=$1 job d
	part rounds && for job in $RW_JOBS; do
		for d in $(rotate "$r" $(job_devs "$job")); do
			run_job "$r" "$d" "$job"
		done
	done
	part discard && for d in $(rotate "$r" $DISCARD_DEVS); do
		echo "$r $d blkdiscard-ms $(discard_whole "$d")" >>"$RAW"
		echo "$r $d discard-1m-ms $(discard_1m "$d")" >>"$RAW"
	done
	echo "round $r done" >&2
}

# ---- steady state: 4 KiB random writes once the WAF has settled ----------
# The rounds above write ftlblk0 about twice over (WAF near 3). Written on,
# a device settles where its over-provisioning puts it: about 6 at 7 %
# under uniform random writes, the greedy model's value. Age it in passes
# of one capacity of the same random writes until a pass's WAF is within
# 5 % of the pass before (at least STEADY_MIN_PASSES passes, so at least
# 4 x capacity), then measure it against brd in rounds as above.
STEADY_MIN_PASSES=4
STEADY_MAX_PASSES=16
age_pass() {	# DEV -> 1000 x the WAF of one capacity of random 4 KiB writes
	local w0
	w0=$(written "$1")
	fio --eta=never --name=age --filename="/dev/$1" --rw=randwrite \
		--bs=4k --direct=1 --ioengine=libaio --iodepth=16 \
		--numjobs="$NJOBS" --size=${SIZE_MIB}M \
		--io_size=$((SIZE_MIB * 1024 / NJOBS))k --randrepeat=0 \
		--norandommap >/dev/null 2>&1
	waf_since "$w0" "$1"
}

age() {	# DEV: random 4 KiB writes until the WAF has settled
	local p w prev=0
	for ((p = 1; p <= STEADY_MAX_PASSES; p++)); do
		w=$(age_pass "$1")
		echo "$p $1 age-waf $w" >>"$RAW"
		if [ "$p" -ge $STEADY_MIN_PASSES ] &&
		   [ $((100 * (w > prev ? w - prev : prev - w))) -le $((5 * w)) ]; then
			break
		fi
		prev=$w
	done
}

steady_state() {
	local r d
	for d in $FTLDEVS; do
		age "$d"
	done
	for ((r = 1; r <= ROUNDS; r++)); do
		for d in $(rotate "$r" $FTLDEVS ram0 nullb0 nullb1); do
			run_job "$r" "$d" randwrite-4k-steady
		done
	done
}

# awk: sort v[0..n-1] (insertion sort, busybox awk has no asort), m = median
AWK_MEDIAN='for (i = 1; i < n; i++) { x = v[i]
		for (k = i - 1; k >= 0 && v[k] > x; k--) v[k + 1] = v[k]
		v[k + 1] = x }
	m = n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2'

# median and range of the values of (dev, job) over the rounds
stats() {	# DEV JOB -> "median min max"
	awk -v d="$1" -v j="$2" '$2 == d && $3 == j { v[n++] = $4 }
		END { if (!n) { print "- - -"; exit }
		      '"$AWK_MEDIAN"'
		      print m, v[0], v[n - 1] }' "$RAW"
}

# per-round ratio A/B of (devA, jobA) to (devB, jobB) -> "median min max"
ratio() {	# DEVA JOBA DEVB JOBB
	awk -v da="$1" -v ja="$2" -v db="$3" -v jb="$4" '
		$2 == da && $3 == ja { a[$1] = $4 }
		$2 == db && $3 == jb { b[$1] = $4 }
		END { for (r in a) if ((r in b) && b[r] > 0) v[n++] = a[r] / b[r]
		      if (!n) { print "- - -"; exit }
		      '"$AWK_MEDIAN"'
		      printf "%.2f %.2f %.2f\n", m, v[0], v[n - 1] }' "$RAW"
}

waf_stats() {	# ftlblk0's (DEV's) waf-JOB records -> "median min max", as ratios
	stats "${2:-ftlblk0}" "$1" | awk '$1 == "-" { print; next }
		{ printf "%.3f %.3f %.3f\n", $1 / 1000, $2 / 1000, $3 / 1000 }'
}

# per-round (ftlblk NJOBS/1 job) / (brd NJOBS/1 job) of JOB -> "median min max"
scaling_ratio() {	# JOB
	awk -v j="$1" '
		$3 == j { a[$1 " " $2] = $4 }
		$3 == j "-1j" { b[$1 " " $2] = $4 }
		END { for (k in a) { split(k, f, " ")
			if (f[2] != "ftlblk0") continue
			r = f[1]
			if (b[r " ftlblk0"] > 0 && b[r " ram0"] > 0 && a[r " ram0"] > 0)
				v[n++] = (a[r " ftlblk0"] / b[r " ftlblk0"]) / (a[r " ram0"] / b[r " ram0"]) }
		      if (!n) { print "- - -"; exit }
		      '"$AWK_MEDIAN"'
		      printf "%.2f %.2f %.2f\n", m, v[0], v[n - 1] }' "$RAW"
}

fmt() {	# "median min max" -> "median (min-max)", or - if none
	set -- $1
	if [ "$1" = - ]; then printf -- -; else printf '%s (%s-%s)' "$1" "$2" "$3"; fi
}

# BENCH_SHARDS: ftlblk1 (shards=N) against brd and against ftlblk0 (one
# shard), per round, and what its extra open blocks and reserves cost in WAF.
shards_report() {
	local job
	echo
	echo "ftlblk1 (shards=$SHARDS) per-round ratios of IOPS, and the WAF of both:"
	printf '%-20s%-22s%-22s%-22s%-22s\n' job "ftlblk1/brd" "ftlblk1/ftlblk0" \
		"WAF ftlblk0" "WAF ftlblk1"
	for job in $RW_JOBS randwrite-4k-steady; do
		printf '%-20s%-22s%-22s%-22s%-22s\n' "$job" \
			"$(fmt "$(ratio ftlblk1 "$job" ram0 "$job")")" \
			"$(fmt "$(ratio ftlblk1 "$job" ftlblk0 "$job")")" \
			"$(fmt "$(waf_stats "waf-$job")")" \
			"$(fmt "$(waf_stats "waf-$job" ftlblk1)")"
	done
	echo "steady state, ftlblk1: $(awk '$2 == "ftlblk1" && $3 == "age-waf" { n++; w = w sep sprintf("%.2f", $4 / 1000); sep = " " }
		END { printf "aged %d x capacity, WAF per pass: %s", n, w }' "$RAW")"
}

report() {
	local job d
	echo
	echo "IOPS, median (lowest-highest) of $ROUNDS rounds:"
	printf '%-16s' job
	for d in $DEVS ram1; do printf '%-26s' "$d"; done
	echo
	for job in $RW_JOBS; do
		printf '%-16s' "$job"
		for d in $DEVS ram1; do printf '%-26s' "$(fmt "$(stats "$d" "$job")")"; done
		echo
	done
	echo
	echo "ftlblk0 / peer, per-round ratio of IOPS (>1: ftlblk faster); goals: >= 1.1 vs"
	echo "null_blk (memory_backed=1, the same blk-mq path), >= 0.9 vs brd on 1 MiB jobs;"
	echo "null_blk-floor: memory_backed=0 (blk-mq alone); last column: null_blk / brd,"
	echo "what blk-mq itself costs against bio-based brd; brd-scattered: ram1, brd"
	echo "with its pages placed in random order, as ftlblk's are (1 MiB jobs):"
	printf '%-16s%-22s%-22s%-22s%-22s%-22s%-22s\n' job brd brd-scattered \
		null_blk null_blk-floor zram "(null_blk/brd)"
	for job in $RW_JOBS; do
		printf '%-16s' "$job"
		for d in ram0 ram1 nullb0 nullb1 zram0; do
			printf '%-22s' "$(fmt "$(ratio ftlblk0 "$job" "$d" "$job")")"
		done
		printf '%-22s' "$(fmt "$(ratio nullb0 "$job" ram0 "$job")")"
		echo
	done
	printf 'where the data lies, brd-scattered / brd:'
	for job in $SCATTERED_JOBS; do
		printf ' %s %s' "$job" "$(fmt "$(ratio ram1 "$job" ram0 "$job")")"
	done
	echo
	echo
	echo "scaling, $NJOBS jobs / 1 job (goal: ftlblk's >= 0.95 x brd's):"
	printf '%-16s%-22s%-22s%-22s\n' job ftlblk0 brd "ftlblk/brd"
	for job in randwrite-4k randread-4k; do
		printf '%-16s%-22s%-22s%-22s\n' "$job" \
			"$(fmt "$(ratio ftlblk0 "$job" ftlblk0 "$job-1j")")" \
			"$(fmt "$(ratio ram0 "$job" ram0 "$job-1j")")" \
			"$(fmt "$(scaling_ratio "$job")")"
	done
	echo
	echo "ftlblk0 write amplification during the write jobs (device full, GC running):"
	for job in randwrite-4k randwrite-4k-1j write-1m; do
		printf '  %-20s WAF %s\n' "$job" "$(fmt "$(waf_stats "waf-$job")")"
	done
	echo
	echo "steady state: $(awk '$2 == "ftlblk0" && $3 == "age-waf" { n++; w = w sep sprintf("%.2f", $4 / 1000); sep = " " }
		END { printf "aged %d x capacity with random 4 KiB writes, WAF per pass: %s", n, w }' "$RAW")"
	printf '%-20s%-22s%-22s%-22s%-22s%-22s\n' job ftlblk0 brd "ftlblk/brd" \
		"ftlblk/null_blk (>=1.1)" "ftlblk/null_blk-floor"
	printf '%-20s%-22s%-22s%-22s%-22s%-22s\n' randwrite-4k-steady \
		"$(fmt "$(stats ftlblk0 randwrite-4k-steady)")" \
		"$(fmt "$(stats ram0 randwrite-4k-steady)")" \
		"$(fmt "$(ratio ftlblk0 randwrite-4k-steady ram0 randwrite-4k-steady)")" \
		"$(fmt "$(ratio ftlblk0 randwrite-4k-steady nullb0 randwrite-4k-steady)")" \
		"$(fmt "$(ratio ftlblk0 randwrite-4k-steady nullb1 randwrite-4k-steady)")"
	printf '  %-20s WAF %s\n' randwrite-4k-steady \
		"$(fmt "$(waf_stats waf-randwrite-4k-steady)")"
	[ -n "$SHARDS" ] && shards_report
	echo
	echo "discard of a full ${SIZE_MIB} MiB device, milliseconds (goal: ftlblk / peer <= 1):"
	printf '%-16s%-22s%-22s%-22s%-22s%-22s\n' job ftlblk0 null_blk zram \
		"ftlblk/null_blk" "ftlblk/zram"
	for job in blkdiscard-ms discard-1m-ms; do
		printf '%-16s%-22s%-22s%-22s%-22s%-22s\n' "$job" \
			"$(fmt "$(stats ftlblk0 "$job")")" \
			"$(fmt "$(stats nullb0 "$job")")" \
			"$(fmt "$(stats zram0 "$job")")" \
			"$(fmt "$(ratio ftlblk0 "$job" nullb0 "$job")")" \
			"$(fmt "$(ratio ftlblk0 "$job" zram0 "$job")")"
	done
}

# BENCH_PROFILE=1: where the guest's CPU time goes during each job on
# ftlblk0 (perf, every CPU, flat by symbol), after the measured rounds so
# that perf's own cost touches no ratio. ftlblk0 is at steady state then.
profile() {
	local job
	command -v perf >/dev/null || { echo "BENCH_PROFILE: no perf in the guest"; return; }
	for job in randwrite-4k randread-4k write-1m read-1m; do
	    for dev in ftlblk0 ram0; do
		echo
		echo "perf profile of $job on $dev ($NJOBS jobs; fio's own samples, user and kernel: symbols >= 1 %):"
		fio_rw "$dev" "$job" >/dev/null &
		sleep 1		# fio's ramp time
		perf record -q -a -F 499 -o /tmp/bench-perf.data -- \
			sleep $((RUNTIME - 1 > 1 ? RUNTIME - 1 : 1)) 2>/dev/null || true
		wait
		perf report -i /tmp/bench-perf.data --comms fio --no-children --sort sym \
			--percent-limit 1 --stdio 2>/dev/null |
			awk '/^ *[0-9.]+%/ { print "  " $0 }' | head -n 25
	    done
	done
}

memory_report() {
	local cap=$((SIZE_MIB << 20)) meta data
	fill ftlblk0
	meta=$(ftl_stat metadata_bytes)
	data=$(ftl_stat data_bytes)
	echo
	echo "ftlblk0 memory: metadata_bytes $meta = $(awk -v m="$meta" -v c="$cap" 'BEGIN { printf "%.3f", m * 100 / c }') % of capacity (goal <= 0.3 %)," \
		"data_bytes full $data"
	blkdiscard /dev/ftlblk0
	echo "ftlblk0 after a full discard: data_bytes $(ftl_stat data_bytes)"
}

# ---- timing=1: fio against the model's own prediction --------------------
# A configfs device with the NAND timing model (default geometry), and
# ftlsim --timing for the same geometry and workload: fio / model per round.
# Under TCG a timed request costs ~100 us of overhead, so only jobs whose
# model rate the guest can sustain are compared: 1 MiB sequential writes
# to a fresh device, steady-state 4 KiB random writes (GC running) and the
# latency of queue-depth-1 4 KiB reads.
TSIZE=64
TCFG=/sys/kernel/config/ftlblk/bench-timed
TSIM="ftlsim --timing --size ${TSIZE}M --pages-per-block 64 --json"
json_field() {	# NAME -> value of a top-level number in ftlsim's JSON on stdin
	sed -n "s/.*\"$1\": \([0-9.]*\).*/\1/p" | head -n 1
}
timed_dev() {	# fresh timed device, prints its name
	[ -d "$TCFG" ] && rmdir "$TCFG"
	mkdir "$TCFG"
	echo 1 >"$TCFG/timing"
	echo "$TSIZE" >"$TCFG/size"
	echo 64 >"$TCFG/pages_per_block"
	echo 1 >"$TCFG/poll_queues"	# for the polled QD1 reads
	echo 1 >"$TCFG/power"
	echo "ftlblk$(cat "$TCFG/index")"
}
timed_fio() {	# DEV FIO-ARGS... -> terse v3 line
	local d=$1
	shift
	fio --eta=never --name=t --filename="/dev/$d" --direct=1 \
		--randrepeat=0 --norandommap --size=${TSIZE}M \
		--output-format=terse --terse-version=3 "$@" 2>/dev/null | tail -n 1
}
uring_p50() {	# DEV [FIO-ARGS...] -> median total latency (us) of QD1 reads
	local d=$1
	shift
	timed_fio "$d" --rw=randread --bs=4k --ioengine=io_uring \
		--lat_percentiles=1 --runtime="$RUNTIME" --time_based --size=16M "$@" |
		tr ';' '\n' | sed -n 's/^50\.000000%=//p' | head -n 1
}
timing_round() {	# ROUND
	local r=$1 d
	d=$(timed_dev)
	# fresh: 1 MiB sequential writes at QD 8, one pass (MB/s)
	echo "$r timed seq-write-1m-mbs $(timed_fio "$d" --rw=write --bs=1m \
		--ioengine=libaio --iodepth=8 | awk -F';' '{ print $48 * 1024 / 1e6 }')" >>"$RAW"
	# QD1 4 KiB reads of written pages (mean latency, us)
	echo "$r timed qd1-read-us $(timed_fio "$d" --rw=randread --bs=4k \
		--ioengine=psync --runtime="$RUNTIME" --time_based --size=16M |
		awk -F';' '{ print $40 }')" >>"$RAW"
	# the same through io_uring: on brd, interrupt-driven, and polled
	# (--hipri: the submitter spins in ftlblk_poll(), poll_queues=1);
	# median total latency (submission included: io_uring runs queue_rq,
	# and brd's whole read, inside it), as a host stall moves the mean
	echo "$r brd qd1-read-uring-us $(uring_p50 ram0)" >>"$RAW"
	echo "$r timed qd1-read-uring-us $(uring_p50 "$d")" >>"$RAW"
	echo "$r timed qd1-read-polled-us $(uring_p50 "$d" --hipri)" >>"$RAW"
	# steady state: fill, 2 x capacity of random writes, then measure
	timed_fio "$d" --rw=write --bs=1m --ioengine=libaio --iodepth=8 >/dev/null
	timed_fio "$d" --rw=randwrite --bs=4k --ioengine=libaio --iodepth=32 \
		--io_size=$((2 * TSIZE))M >/dev/null
	echo "$r timed randwrite-4k-iops $(timed_fio "$d" --rw=randwrite --bs=4k \
		--ioengine=libaio --iodepth=32 --runtime=$((2 * RUNTIME)) \
		--time_based | awk -F';' '{ print $49 }')" >>"$RAW"
	rmdir "$TCFG"
}
timing_model() {	# the model's values, once (it is deterministic)
	echo "0 model seq-write-1m-mbs $($TSIM --workload sequential \
		--request-pages 256 --queue-depth 8 --writes 1 | json_field host_mbps)" >>"$RAW"
	echo "0 model qd1-read-us $($TSIM --fill --read-fraction 0.999 \
		--queue-depth 1 --writes 0.01 |
		sed -n 's/.*"read_latency_us": {"mean": \([0-9.]*\).*/\1/p')" >>"$RAW"
	echo "0 model randwrite-4k-iops $($TSIM --fill --warmup 2 --writes 2 \
		--queue-depth 32 | json_field host_iops)" >>"$RAW"
}
timing_report() {
	local job m
	echo
	echo "timing=1 (default geometry, ${TSIZE} MiB, 64 pages/block): fio against ftlsim --timing, median (lowest-highest) of $ROUNDS rounds:"
	printf '%-22s%-36s%-14s%-22s\n' job fio model "fio / model"
	for job in seq-write-1m-mbs randwrite-4k-iops qd1-read-us; do
		m=$(stats model "$job" | cut -d' ' -f1)
		printf '%-22s%-36s%-14s%-22s\n' "$job" \
			"$(fmt "$(stats timed "$job")")" "$m" \
			"$(fmt "$(awk -v j="$job" -v m="$m" '$2 == "timed" && $3 == j { v[n++] = $4 / m }
				END { if (!n || !m) { print "- - -"; exit }
				      '"$AWK_MEDIAN"'
				      printf "%.2f %.2f %.2f\n", m, v[0], v[n - 1] }' "$RAW")")"
	done
	echo "(qd1-read-us: a ratio above 1 is the TCG overhead of a timed request; tests/vm/guest/41-timing.sh measures it)"
	echo
	echo "QD1 4 KiB reads through io_uring, median total latency in us, against the model plus brd's latency in the same round (goal for polled: within 10 %):"
	printf '%-26s%-36s%-22s\n' job fio "fio / (model + brd)"
	printf '%-26s%-36s\n' brd "$(fmt "$(stats brd qd1-read-uring-us)")"
	for job in qd1-read-uring-us qd1-read-polled-us; do
		printf '%-26s%-36s%-22s\n' "$job" "$(fmt "$(stats timed "$job")")" \
			"$(fmt "$(awk -v j="$job" -v m="$(stats model qd1-read-us | cut -d' ' -f1)" '
				$2 == "timed" && $3 == j { t[$1] = $4 }
				$2 == "brd" && $3 == "qd1-read-uring-us" { b[$1] = $4 }
				END { for (r in t) if (r in b) v[n++] = t[r] / (m + b[r])
				      if (!n) { print "- - -"; exit }
				      '"$AWK_MEDIAN"'
				      printf "%.2f %.2f %.2f\n", m, v[0], v[n - 1] }' "$RAW")")"
	done
}

# ---- layout: where the data lies, against how it was written -------------
# Is the 1 MiB jobs' gap to brd ftlblk's work or where its data lies? A
# fresh configfs device (nothing recycled yet, no GC), filled once in LBA
# order and once in random order (each 4 KiB block once: its pages then
# lie as scattered as after random overwrites), read in 1 MiB requests
# against ram0 (LBA order) and ram1 (random order), per round. zram is
# emptied first, for the memory.
LAYOUT_CFG=/sys/kernel/config/ftlblk/bench-layout
layout_dev() {	# ORDER (lba|random) -> a fresh device filled so, its name
	local d
	mkdir "$LAYOUT_CFG"
	echo "$SIZE_MIB" >"$LAYOUT_CFG/size"
	echo 1 >"$LAYOUT_CFG/power"
	d=ftlblk$(cat "$LAYOUT_CFG/index")
	if [ "$1" = lba ]; then fill "$d"; else fill_scattered "$d"; fi
	echo "$d"
}

layout_part() {
	local order d r x
	echo 1 >/sys/block/zram0/reset
	for order in lba random; do
		d=$(layout_dev "$order")
		for ((r = 1; r <= ROUNDS; r++)); do
			for x in $(rotate "$r" "$d" ram0 ram1); do
				echo "$r ${x/$d/ftl} layout-$order $(fio_rw "$x" read-1m)" >>"$RAW"
			done
		done
		echo 0 >"$LAYOUT_CFG/power"
		rmdir "$LAYOUT_CFG"
	done
}

layout_report() {
	echo
	echo "layout: 1 MiB reads of a fresh ftlblk (no GC) filled in LBA or random order,"
	echo "per-round ratio of IOPS (ram0: brd filled in LBA order, ram1: in random order):"
	printf '%-22s%-22s%-22s%-22s\n' "ftl-lba/ram0" "ftl-random/ram0" \
		"ftl-random/ram1" "ram1/ram0"
	printf '%-22s%-22s%-22s%-22s\n' \
		"$(fmt "$(ratio ftl layout-lba ram0 layout-lba)")" \
		"$(fmt "$(ratio ftl layout-random ram0 layout-random)")" \
		"$(fmt "$(ratio ftl layout-random ram1 layout-random)")" \
		"$(fmt "$(ratio ram1 layout-lba ram0 layout-lba)")"
}

# ---- placement: WAF of a hot/cold mix, per GC policy and placement --------
# 80 % of 4 KiB random writes to the first 10 % of a 64 MiB device (op
# 10 %, 64 pages a block), through two device nodes: the hot pages with
# write lifetime hint SHORT, the cold ones with EXTREME (hotcold). After a
# fill and 4 x capacity of warm-up, WAF over 4 x capacity. One run each:
# the writes are sequential and seeded, so WAF is deterministic. ftlsim
# runs the same mix (its own random draws) with one class and with two.
PL_MIB=64 PL_CFG=/sys/kernel/config/ftlblk/bench-pl
pl_waf() {	# POLICY PLACEMENT -> WAF, or "-" where the kernel refuses it
	local pages=$((PL_MIB * 256)) d mm waf=-
	mkdir "$PL_CFG"
	echo "$PL_MIB" >"$PL_CFG/size"
	echo 64 >"$PL_CFG/pages_per_block"
	echo 10 >"$PL_CFG/op_percent"
	echo "$1" >"$PL_CFG/gc_policy"
	echo "$2" >"$PL_CFG/placement"
	[ "$2" = stream ] && echo 8 >"$PL_CFG/write_streams"
	if echo 1 2>/dev/null >"$PL_CFG/power"; then
		d=ftlblk$(cat "$PL_CFG/index")
		mm=$(cat "/sys/block/$d/dev")
		rm -f /dev/pl-hot /dev/pl-cold
		mknod /dev/pl-hot b "${mm%%:*}" "${mm##*:}"
		mknod /dev/pl-cold b "${mm%%:*}" "${mm##*:}"
		hotcold /dev/pl-hot /dev/pl-cold $pages 100 800 1 $((4 * pages)) 1 >/dev/null
		echo 1 >"/sys/block/$d/ftl/reset_stats"
		hotcold /dev/pl-hot /dev/pl-cold $pages 100 800 0 $((4 * pages)) 2 >/dev/null
		waf=$(cat "/sys/block/$d/ftl/waf")
		echo "$1 $2 $(awk '$2 { printf "%s:%s:%s ", $1, $2, $3 }' "/sys/block/$d/ftl/class_stats")" >>/tmp/bench-pl-classes.txt
		echo 0 >"$PL_CFG/power"
		rm -f /dev/pl-hot /dev/pl-cold
	fi
	rmdir "$PL_CFG"
	echo "$waf"
}
pl_sim() {	# POLICY [CLASS FLAGS...] -> ftlsim's WAF for the same mix
	local p=$1
	shift
	ftlsim --size ${PL_MIB}M --pages-per-block 64 --op-percent 10 --policy "$p" \
		--workload hotcold:10:80 --fill --warmup 4 --writes 4 "$@" --json |
		json_field waf
}
pl_vs() {	# WAF BASE -> "WAF (+N %)"
	awk -v w="$1" -v b="$2" 'BEGIN { if (w == "-" || b == "-" || !b) { printf "%-18s", w; exit }
		printf "%-18s", sprintf("%.3f (%+.1f %%)", w, (w / b - 1) * 100) }'
}
placement_report() {
	local p none hint stream s1 s2
	: >/tmp/bench-pl-classes.txt
	echo
	echo "placement: WAF, hot/cold (80 % of 4 KiB writes to 10 % of ${PL_MIB} MiB, hints SHORT / EXTREME through two nodes), op 10 %, 64 pages/block; after fill + 4 x warm-up, 4 x capacity measured:"
	printf '%-14s%-10s%-18s%-18s%-14s%-18s
' policy none hint stream "ftlsim 1" "ftlsim 2 classes"
	for p in greedy fifo cost-benefit; do
		none=$(pl_waf "$p" none)
		hint=$(pl_waf "$p" hint)
		stream=$(pl_waf "$p" stream)
		s1=$(pl_sim "$p")
		s2=$(pl_sim "$p" --placement-classes 2 --classify hotcold)
		printf '%-14s%-10s%s%s%-14s%s\n' "$p" "$none" "$(pl_vs "$hint" "$none")" \
			"$(pl_vs "$stream" "$none")" "$(printf '%.3f' "$s1")" "$(pl_vs "$s2" "$s1")"
	done
	echo "(- : the kernel has no such interface: hints from 6.9, streams from 6.16; a stream-less write's hint is its stream)"
	echo "classes written (CLASS:PAGES:BLOCKS, measured part):"
	sed 's/^/  /' /tmp/bench-pl-classes.txt
}

setup
for d in $DEVS; do
	fill "$d"
done
fill_scattered ram1
if part rounds || part discard; then
	for ((r = 1; r <= ROUNDS; r++)); do
		run_round "$r"
	done
fi
part steady && steady_state
if part timed; then
	timing_model
	for ((r = 1; r <= ROUNDS; r++)); do
		timing_round "$r"
	done
fi
report
part timed && timing_report
[ "${BENCH_PROFILE:-0}" = 1 ] && profile
part memory && memory_report
part placement && placement_report
part layout && layout_part && layout_report
echo
echo "ftlblk0 over the whole run: waf $(ftl_stat waf), erases $(ftl_stat erases), gc_runs $(ftl_stat gc_runs), nomem_writes $(ftl_stat nomem_writes)"
cp "$RAW" /out/bench-raw.txt
[ -n "$SHARDS" ] && echo 0 >/sys/kernel/config/ftlblk/bench-sharded/power &&
	rmdir /sys/kernel/config/ftlblk/bench-sharded
# null_blk stays in use while its configfs device exists
echo 0 >/sys/kernel/config/nullb/nullb1/power
rmdir /sys/kernel/config/nullb/nullb1
modprobe -r ftlblk brd null_blk zram
