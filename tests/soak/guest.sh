#!/bin/sh
# Guest side of `make soak`: on one ftlblk device, two fio jobs of random
# 4 KiB writes, each on its own 35 % of the device, with crc32c
# verification running alongside (verify_backlog: reads of what was
# written, while GC and wear leveling move it), until they have written
# SOAK_TIMES x the capacity, then a final verify of everything; beside
# them a third job trims and rewrites the next 15 % (fio's randtrimwrite,
# verified too), so discards reach the FTL all along. The last 15 % hold
# cold data written once before, which wear leveling must move (it is
# compared with its copy at the end). The
# device is small and tight (SOAK_OP percent spare, wl_threshold 4), so GC
# runs all the time and wear leveling moves cold data too. Any fio error,
# verify mismatch, kernel warning or broken counter fails the run.
# Extra module parameters (e.g. faults) come in SOAK_PARAMS.
# shellcheck source=../vm/guest/lib.sh
. /tests/lib.sh
SIZE=${SOAK_SIZE_MIB:-32}
TIMES=${SOAK_TIMES:-100}
OP=${SOAK_OP:-5}
POLICY=${SOAK_POLICY:-greedy}
plan 11

# shellcheck disable=SC2086 # SOAK_PARAMS is a list of parameters
ok "modprobe ftlblk size=$SIZE op_percent=$OP wl_threshold=4 gc_policy=$POLICY $SOAK_PARAMS" \
	modprobe ftlblk size="$SIZE" blocksize=4096 pages_per_block=64 \
	op_percent="$OP" wl_threshold=4 gc_policy="$POLICY" ${SOAK_PARAMS:-}
part=$((SIZE * 1024 * 35 / 100 / 64 * 64))	# KiB, 35 %, in whole 64 KiB
trim=$((SIZE * 1024 * 15 / 100 / 64 * 64))
cold=$((2 * part + trim))
ok "cold data in the last $((SIZE * 1024 - cold)) KiB" sh -c "
	dd if=/dev/urandom of=/tmp/soak-cold bs=1k count=$((SIZE * 1024 - cold)) 2>/dev/null &&
	dd if=/tmp/soak-cold of=/dev/ftlblk0 bs=1k seek=$cold oflag=direct 2>/dev/null"
per_job=$((SIZE * TIMES / 2))
diag "two writers, ${part} KiB each, ${per_job} MiB written by each: ${TIMES}x the capacity"
t0=$(date +%s)
ok "fio: writes, trims and verifying reads, ${TIMES}x capacity, no error" \
	fio --eta=never --filename=/dev/ftlblk0 --direct=1 --ioengine=libaio \
	--iodepth=8 --bs=4k --norandommap --randrepeat=0 \
	--verify=crc32c --verify_fatal=1 --verify_backlog=4096 --do_verify=1 \
	--output=/tmp/soak-fio.log \
	--name=a --rw=randwrite --offset=0 --size="${part}k" --io_size="${per_job}M" \
	--name=b --rw=randwrite --offset="${part}k" --size="${part}k" --io_size="${per_job}M" \
	--name=trims --rw=randtrimwrite --offset="$((2 * part))k" --size="${trim}k" \
	--io_size="$((per_job / 4))M"
t1=$(date +%s)
grep -E 'WRITE:|READ:|TRIM:|err=' /tmp/soak-fio.log | sed 's/^/# /'
S=/sys/block/ftlblk0/ftl
for f in host_pages_written nand_pages_written waf gc_runs wl_runs \
	wl_relocations erases erase_min erase_max pages_discarded \
	program_failures erase_failures bad_blocks spare_blocks read_only; do
	diag "$f $(cat $S/$f)"
done
diag "soak time: $((t1 - t0)) s"
ok "the host wrote at least ${TIMES}x the capacity" \
	test "$(cat $S/host_pages_written)" -ge $((SIZE * 256 * TIMES))
ok "the cold data reads back unchanged" sh -c \
	"dd if=/dev/ftlblk0 bs=1k skip=$cold iflag=direct 2>/dev/null | cmp - /tmp/soak-cold"
ok "discards reached the FTL ($(cat $S/pages_discarded) pages)" \
	test "$(cat $S/pages_discarded)" -gt 0
ok "GC ran ($(cat $S/gc_runs) runs)" test "$(cat $S/gc_runs)" -gt 0
ok "wear leveling moved data ($(cat $S/wl_relocations) pages)" \
	test "$(cat $S/wl_relocations)" -gt 0
is "$(cat $S/nand_pages_written)" \
	$(($(cat $S/host_pages_written) + $(cat $S/gc_relocations) + $(cat $S/wl_relocations))) \
	"nand_pages_written = host + GC + WL relocations"
ok "modprobe -r ftlblk" modprobe -r ftlblk
check_dmesg
done_testing
st=$?
echo "$((TAP_N - TAP_FAILED)) passed, $TAP_FAILED failed"
exit $st
