#!/bin/sh
# The kernel's own fault injection on ftlblk's paths (make check-debug
# only: Debian's kernels have no CONFIG_FAULT_INJECTION). fio writes,
# trims, flushes and verifies on a device with the write cache on and
# little over-provisioning (so GC runs), while fail_page_alloc fails every
# 20th allocation that may not wait made by fio's processes (task-filter,
# make-it-fail, ignore-gfp-wait): the data pages ftlblk takes in queue_rq
# with GFP_NOWAIT. Each such write must be served anyway, from the
# WQ_MEM_RECLAIM worker with GFP_NOIO: 0 verify errors, no KASAN,
# lockdep or hung-task report, and the writes the failures sent to the
# worker are counted (nomem_writes, must be > 0).
# shellcheck source=../guest/lib.sh
. /tests/lib.sh
need_module ftlblk
need_cmd fio
plan 7

FPA=/sys/kernel/debug/fail_page_alloc
cleanup() {
	[ -d "$FPA" ] && echo 0 > "$FPA/probability"
	[ -d "$CFS/fi" ] && rmdir "$CFS/fi"
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

ok "fail_page_alloc is built in ($FPA)" test -d "$FPA"
ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
D=$(mkdev fi size=64 pages_per_block=64 op_percent=7 write_cache=1 cache_mib=4)
ok "device $D: write cache 4 MiB, 7 % over-provisioning" test -b "/dev/$D"
# The last 24 MiB written once, so that GC has data to move; the rest is
# left unwritten: a write of a new page allocates one (overwrites mostly
# take the page the last overwrite gave back to the pool).
dd if=/dev/urandom of="/dev/$D" bs=1M seek=40 count=24 oflag=direct 2>/dev/null
g0=$(st "$D" gc_runs)

echo 1 > "$FPA/task-filter"
echo Y > "$FPA/ignore-gfp-wait"
echo N > "$FPA/ignore-gfp-highmem"
echo 0 > "$FPA/min-order"
echo 20 > "$FPA/interval"
echo 100 > "$FPA/probability"
# times counts down with every failure injected: the count.
TIMES=1000000
echo $TIMES > "$FPA/times"
echo 0 > "$FPA/space"
echo 0 > "$FPA/verbose"
sh -c "echo 1 > /proc/self/make-it-fail && exec fio --eta=never \
	--output=/tmp/fi-fio.log --output-format=json \
	--filename=/dev/$D --direct=1 --bs=4k --verify=crc32c --verify_fatal=1 \
	--do_verify=1 --randrepeat=0 --ioengine=psync \
	--name=trimwrite --rw=randtrimwrite --offset=0 --size=16M --loops=2 \
	--name=overwrite --rw=randwrite --offset=16M --size=24M --io_size=48M \
	--fsync=32 --norandommap" >/tmp/fi-fio.out 2>&1
rc=$?
echo 0 > "$FPA/probability"
is "$rc" 0 "fio (trim+write and overwrite jobs with fsync, crc32c verify) exits 0"
diag "$(tail -n 3 /tmp/fi-fio.out)"
injected=$((TIMES - $(cat "$FPA/times")))
# ftlblk's data pages are taken with __GFP_NOWARN, so their failures are
# not logged (FAULT_NOWARN): each is a write sent to the worker.
hit=$(st "$D" nomem_writes)
diag "failures injected into fio's allocations: $injected; writes ftlblk served on the worker for want of memory: $hit; gc_runs $g0 -> $(st "$D" gc_runs)"
ok "injected failures hit ftlblk's writes ($hit of $injected)" test "$hit" -gt 0
ok "GC ran meanwhile" test "$(st "$D" gc_runs)" -gt "$g0"
check_dmesg "no KASAN, lockdep, hung-task or other kernel report" \
	'BUG:|KASAN|WARNING:|possible circular|possible recursive|inconsistent lock|blocked for more than|Oops|general protection|I/O error'
done_testing
