#!/bin/sh
# Guest side of `make bench`: the same fio jobs on ftlblk and on its peers
# in one boot, so every ratio compares like with like (same kernel, same
# TCG slowdown, same moment). Prints one line per device and job, then the
# ftlblk/peer ratios.
set -eu
SIZE_MIB=${BENCH_SIZE_MIB:-256}
RUNTIME=${BENCH_RUNTIME:-8}
JOBS="randwrite-4k randread-4k write-1m read-1m"

fio_job() {	# DEV JOB -> IOPS
	case $2 in
	randwrite-4k) rw=randwrite bs=4k ;;
	randread-4k) rw=randread bs=4k ;;
	write-1m) rw=write bs=1m ;;
	read-1m) rw=read bs=1m ;;
	esac
	fio --eta=never --name="$2" --filename="$1" --rw=$rw --bs=$bs --direct=1 \
		--ioengine=libaio --iodepth=16 --numjobs=2 --group_reporting \
		--size=${SIZE_MIB}M --time_based --runtime="$RUNTIME" \
		--ramp_time=1 --randrepeat=0 --norandommap \
		--output-format=terse --terse-version=3 2>/dev/null |
		awk -F';' -v rw="$rw" '{ print (rw ~ /read/) ? $8 : $49 }'
}

prefill() {	# DEV: write it once, so reads hit data, not holes
	fio --eta=never --name=fill --filename="$1" --rw=write --bs=1m --direct=1 \
		--ioengine=libaio --iodepth=8 --size=${SIZE_MIB}M \
		--output-format=terse >/dev/null 2>&1
}

setup() {
	modprobe ftlblk size="$SIZE_MIB" submit_queues=2
	modprobe brd rd_nr=1 rd_size=$((SIZE_MIB * 1024))
	modprobe null_blk nr_devices=1 memory_backed=1 gb=1 submit_queues=2
	modprobe zram num_devices=1
	echo "${SIZE_MIB}M" >/sys/block/zram0/disksize
}

setup
devs="ftlblk0 ram0 nullb0 zram0"
for d in $devs; do
	prefill /dev/$d
done
results=/tmp/bench.txt
: >$results
for job in $JOBS; do
	for d in $devs; do
		iops=$(fio_job /dev/$d $job)
		echo "$d $job $iops" >>$results
		printf '%-8s %-14s %10s IOPS\n' "$d" "$job" "$iops"
	done
done
echo
echo "ftlblk0 relative to its peers (>1: ftlblk faster):"
printf '%-14s %8s %8s %8s\n' job brd null_blk zram
for job in $JOBS; do
	awk -v job="$job" '$2 == job { v[$1] = $3 }
		END { f = v["ftlblk0"];
		      printf "%-14s %8.2f %8.2f %8.2f\n", job,
			f / v["ram0"], f / v["nullb0"], f / v["zram0"] }' $results
done
echo
echo "ftlblk0 after the run: waf $(cat /sys/block/ftlblk0/ftl/waf)," \
	"erases $(cat /sys/block/ftlblk0/ftl/erases)"
cp $results /out/bench.txt
modprobe -r ftlblk brd null_blk zram
