#!/bin/sh
# The gc_policy attribute reaches the FTL, not only sysfs: a device full of
# cold data whose first erase block's worth of pages is rewritten over and
# over. Every rewrite pass leaves one block with no valid page, so greedy
# (fewest valid pages) and cost-benefit (an empty block is free) collect
# only empty blocks and relocate nothing, while FIFO collects the oldest
# block first, which holds cold data, and relocates it. The cold data reads
# back unchanged after FIFO moved it. (Caught the mutant that drops
# fcfg->gc_policy in ftlblk_config_to_ftl(): every device ran greedy.)
# The same workload with gc_low_blocks=3 gc_high_blocks=6 leaves at least
# 2 blocks free at any time (GC collects up to 6 once fewer than 3 are free
# and the host takes one at a time); with the default watermarks (2 and 2),
# which a device gets if the attributes never reach the FTL, it is 1.
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
plan 23

cleanup() {
	for p in greedy fifo cost-benefit wm; do
		[ -d "$CFS/gp-$p" ] && rmdir "$CFS/gp-$p"
	done
	rm -f /tmp/gp.ref
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
# 4 MiB of 4 KiB pages, 16 per block: 64 logical blocks + 7 spare.
dd if=/dev/urandom of=/tmp/gp.ref bs=64k count=64 2>/dev/null

for p in greedy fifo cost-benefit; do
	D=$(mkdev "gp-$p" size=4 blocksize=4096 pages_per_block=16 op_percent=10 \
		gc_policy="$p" wl_threshold=0)
	ok "$p: device $D" test -b "/dev/$D"
	dd if=/tmp/gp.ref of="/dev/$D" bs=64k oflag=direct 2>/dev/null
	# 40 passes over lpns 0..15, one flash block each.
	i=0
	while [ $i -lt 40 ]; do
		dd if=/tmp/gp.ref of="/dev/$D" bs=64k count=1 oflag=direct 2>/dev/null
		i=$((i + 1))
	done
	eval "runs_$(echo $p | tr - _)=$(st "$D" gc_runs)"
	eval "rel_$(echo $p | tr - _)=$(st "$D" gc_relocations)"
	is "$(st "$D" host_pages_written)" $((1024 + 40 * 16)) "$p: 1664 host pages written"
	ok "$p: $D reads back the reference (cold data intact)" cmp "/dev/$D" /tmp/gp.ref
	is "$(st "$D" valid_pages)" 1024 "$p: 1024 valid pages"
done

# shellcheck disable=SC2154 # assigned through eval above
{
	ok "GC ran under every policy (greedy $runs_greedy, fifo $runs_fifo, cost-benefit $runs_cost_benefit runs)" \
		test "$runs_greedy" -gt 0 -a "$runs_fifo" -gt 0 -a "$runs_cost_benefit" -gt 0
	is "$rel_greedy" 0 "greedy collects only empty blocks: 0 relocations"
	is "$rel_cost_benefit" 0 "cost-benefit collects only empty blocks: 0 relocations"
	ok "fifo collects the oldest blocks, full of cold data: $rel_fifo relocations >= 16" \
		test "$rel_fifo" -ge 16
}

# ---- GC watermarks ----------------------------------------------------------
W=$(mkdev gp-wm size=4 blocksize=4096 pages_per_block=16 op_percent=20 \
	gc_low_blocks=3 gc_high_blocks=6 wl_threshold=0)
ok "watermarks: device $W (13 spare blocks)" test -b "/dev/$W"
dd if=/tmp/gp.ref of="/dev/$W" bs=64k oflag=direct 2>/dev/null
low=$(st "$W" free_blocks)
i=0
while [ $i -lt 40 ]; do
	dd if=/tmp/gp.ref of="/dev/$W" bs=64k count=1 oflag=direct 2>/dev/null
	f=$(st "$W" free_blocks)
	[ "$f" -lt "$low" ] && low=$f
	i=$((i + 1))
done
ok "watermarks: GC ran ($(st "$W" gc_runs) runs)" test "$(st "$W" gc_runs)" -gt 0
ok "watermarks: never fewer than gc_low_blocks - 1 = 2 blocks free (fewest: $low)" test "$low" -ge 2
ok "watermarks: $W reads back the reference" cmp "/dev/$W" /tmp/gp.ref

for p in greedy fifo cost-benefit wm; do rmdir "$CFS/gp-$p"; done
ok "modprobe -r ftlblk" modprobe -r ftlblk
check_dmesg
done_testing
