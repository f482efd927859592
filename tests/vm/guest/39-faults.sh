#!/bin/sh
# Flash faults in the kernel (issue 9). 1. Program and erase failures: fio
# random writes and trims with crc32c verify over 50x the capacity of an
# 8 MiB device with 100 % over-provisioning, program_fail_ppm=1500 and
# erase_fail_ppm=3000: hundreds of blocks go bad, each relocated and
# retired, and fio sees no error and no verify mismatch. The counters add
# up: every failure retired exactly one block, the spare pool shrank by as
# much, NAND programs = host + GC + WL. 2. End of life: endurance=8 with
# wear leveling on a 2 MiB device, random 4 KiB writes until the device
# refuses one (tests/vm/tools/wearout.c): the first error is EIO, later
# writes and a discard fail too, every acknowledged write reads back, the
# disk is marked read-only (sysfs ro, read_only) and the kernel log has one
# line naming the device and saying why. The same fault_seed gives the same
# failures. 3. The bad_block tracepoint fires once per retired block.
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
need_cmd fio wearout
plan 27

TR=/sys/kernel/tracing
cleanup() {
	[ -w $TR/events/ftlblk/enable ] && echo 0 > $TR/events/ftlblk/enable
	for n in flt eol eol2; do [ -d "$CFS/$n" ] && rmdir "$CFS/$n"; done
	rm -f /tmp/flt-*.log /tmp/eol*.out
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0

# 8 MiB of 4 KiB pages in 4-page blocks: 512 blocks of data, 512 spare.
D=$(mkdev flt size=8 blocksize=4096 pages_per_block=4 op_percent=100 \
	program_fail_ppm=1500 erase_fail_ppm=3000 fault_seed=7 wl_threshold=8)
ok "faulty device $D created" test -b "/dev/$D"
[ -d $TR/events/ftlblk ] || mount -t tracefs none $TR 2>/dev/null
echo > $TR/trace
echo 1 > $TR/events/ftlblk/ftlblk_bad_block/enable
# Two jobs at once: random writes over 6 MiB (400 MiB of them, 50x the
# capacity) and trims with rewrites over the last 2 MiB (fio's
# randtrimwrite: trim a block, then write it), each crc32c verified.
ok "fio: 400 MiB of random writes beside trims and rewrites, crc32c verified" \
	fio --eta=never --filename=/dev/"$D" --bs=4k --direct=1 \
	--ioengine=libaio --iodepth=8 --norandommap --randrepeat=0 \
	--verify=crc32c --verify_fatal=1 --do_verify=1 --output=/tmp/flt-fio.log \
	--name=writes --rw=randwrite --size=6M --io_size=400M \
	--name=trims --rw=randtrimwrite --offset=6M --size=2M --io_size=100M
echo 0 > $TR/events/ftlblk/ftlblk_bad_block/enable
pf=$(st "$D" program_failures) ef=$(st "$D" erase_failures) bb=$(st "$D" bad_blocks)
diag "host_pages_written=$(st "$D" host_pages_written) pages_discarded=$(st "$D" pages_discarded) program_failures=$pf erase_failures=$ef bad_blocks=$bb spare_blocks=$(st "$D" spare_blocks) waf=$(st "$D" waf) erases=$(st "$D" erases)"
ok "50x the capacity written ($(st "$D" host_pages_written) pages)" \
	test "$(st "$D" host_pages_written)" -ge $((50 * 2048))
ok "and discarded ($(st "$D" pages_discarded) pages)" \
	test "$(st "$D" pages_discarded)" -ge 2048
ok "hundreds of program failures ($pf >= 100)" test "$pf" -ge 100
# Program and erase faults draw from one seeded stream: ~386 draws fail,
# and which of them land on erases (~19 %) depends on how fio's two jobs
# interleave: erase failures ~ Binomial(386, 0.19), mean 75, sd 8; 30 is
# 5.8 sd below.
ok "and erase failures ($ef >= 30)" test "$ef" -ge 30
is "$bb" $((pf + ef)) "each failure retired one block: bad_blocks = program + erase failures"
is "$(st "$D" spare_blocks)" $((512 - bb)) "spare_blocks = 512 configured - bad_blocks"
is "$(st "$D" read_only) $(sysfs_read /sys/block/"$D"/ro)" "0 0" "not worn out: still writable"
is "$(st "$D" nand_pages_written)" \
	$(($(st "$D" host_pages_written) + $(st "$D" gc_relocations) + $(st "$D" wl_relocations))) \
	"nand_pages_written = host + GC + WL relocations"
is "$(grep -c 'ftlblk_bad_block:' $TR/trace)" "$bb" "one ftlblk_bad_block trace event per retired block"
rmdir "$CFS/flt"

# End of life: 2 MiB = 512 pages in 4-page blocks, 25 % over-provisioning
# (32 spare blocks), every block survives 8 erases.
eol() {	# NAME ATTR=VALUE...
	_n=$1
	shift
	mkdev "$_n" size=2 blocksize=4096 pages_per_block=4 op_percent=25 \
		endurance=8 wl_threshold=2 "$@"
}
D=$(eol eol)
ok "device $D with endurance=8 created" test -b "/dev/$D"
ok "random 4 KiB writes until the end of life: every acknowledged write reads back" \
	sh -c "wearout /dev/$D 11 200000 > /tmp/eol.out"
sed 's/^/# /' /tmp/eol.out
is "$(grep -E '^first_error ' /tmp/eol.out)" "first_error EIO" "the first refused write failed with EIO"
is "$(grep -E '^writes_refused_after ' /tmp/eol.out)" "writes_refused_after 64/64" "every later write fails"
# EIO from the device, or EPERM from the block layer once the disk is ro.
ok "a discard fails ($(grep -E '^discard_after ' /tmp/eol.out))" \
	grep -qE '^discard_after (EIO|EPERM)$' /tmp/eol.out
is "$(st "$D" read_only) $(sysfs_read /sys/block/"$D"/ro)" "1 1" "read_only and the disk's ro flag say 1"
ok "erase failures retired blocks ($(st "$D" erase_failures))" test "$(st "$D" erase_failures)" -gt 0
is "$(st "$D" erase_max)" 8 "no block was erased more than its endurance, and some reached it"
n=$(dmesg_since_start | grep -c "$D: flash worn out, device is now read-only")
is "$n" 1 "one kernel log line names $D, says read-only and why"
acked=$(grep -E '^acknowledged_writes ' /tmp/eol.out | cut -d' ' -f2)
ok "the device lived: $acked writes >= 640 pages x 8 erases / 4" \
	test "${acked:-0}" -ge 1280
pure=${acked:-0}
rmdir "$CFS/eol"
# 2 % of the erases fail at random too: same seed, same death.
D=$(eol eol erase_fail_ppm=20000 fault_seed=5)
E2=$(eol eol2 erase_fail_ppm=20000 fault_seed=5)
wearout /dev/"$D" 11 200000 > /tmp/eol.out
wearout /dev/"$E2" 11 200000 > /tmp/eol2.out
acked=$(grep -E '^acknowledged_writes ' /tmp/eol.out | cut -d' ' -f2)
is "$(grep -E '^acknowledged_writes ' /tmp/eol2.out)" "acknowledged_writes $acked" \
	"same fault_seed and writes: the device dies at the same write ($acked)"
is "$(st "$E2" bad_blocks)" "$(st "$D" bad_blocks)" "... with the same bad blocks"
ok "random erase failures shortened its life: $acked writes < $pure" \
	test "${acked:-0}" -lt "$pure"
rmdir "$CFS/eol" "$CFS/eol2"
rm -f /tmp/flt-*.log /tmp/eol*.out
ok "modprobe -r ftlblk" modprobe -r ftlblk
# Refused writes log "I/O error" lines by design; anything else is a bug.
check_dmesg "no warning, oops or corruption in dmesg" \
	'WARNING:|BUG:|Oops|general protection|Call Trace|blocked for more than|refcount_t:|corruption'
done_testing
