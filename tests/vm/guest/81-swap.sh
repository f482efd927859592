#!/bin/sh
# Swap on ftlblk, and swap's discards. Swap was one of the first users of
# discard (2.6.29, weeks after the 2008 patch set). A memory hog in a
# memory cgroup smaller than itself pushes more than the swap area's size
# through an ftlblk device and must get every page back; at the device,
# exactly: without --discard swap discards nothing; --discard=once
# discards the whole area but the header page at swapon; --discard=pages
# discards each swap cluster when it becomes free, whole and aligned, and
# the memory the hog's swap held is given back once it has exited.
# ftlblk's data lives in RAM too: the hog (72 MiB in a 32 MiB cgroup) and
# the 96 MiB device fit the guest's 2 GiB with room to spare, so what is
# measured is swap's forward progress, never an OOM.
# shellcheck source=lib.sh
. /tests/lib.sh
# shellcheck source=conform-lib.sh
. /tests/conform-lib.sh
need_module ftlblk
need_cmd mkswap swapon swapoff memhog
plan 18

SWAP_MIB=96
SECTORS=$((SWAP_MIB << 11))
CG=/sys/fs/cgroup/ftlblk-swap
cleanup() {
	swapoff "/dev/$S" 2>/dev/null
	[ -d "$CG" ] && rmdir "$CG"
	trace_stop
	[ -d "$CFS/sw" ] && rmdir "$CFS/sw"
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
meminfo_kib() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
cdev_ok "a $SWAP_MIB MiB device for swap" sw size=$SWAP_MIB pages_per_block=64
S=$CDEV
ok "mkswap /dev/$S" mkswap "/dev/$S"

# ---- no --discard: nothing --------------------------------------------------
d0=$(cstat "$S" discard_sectors)
ok "swapon /dev/$S, swapoff" sh -c "swapon /dev/$S && swapoff /dev/$S"
is "$(($(cstat "$S" discard_sectors) - d0))" 0 "without --discard nothing is discarded"

# ---- --discard=once: the whole area but the header, at swapon -------------------
trace_start
ok "swapon --discard=once" swapon --discard=once "/dev/$S"
is "$(trace_ranges "$S" | ranges_merge | tr '\n' ' ')" "8 $SECTORS " \
	"discard=once: sectors 8..$SECTORS, all but the header page"
ok "swapoff" swapoff "/dev/$S"
is "$(cstat "$S" valid_pages)" 1 "only the header page is left on flash"

# ---- --discard=pages, with the hog ------------------------------------------
[ -f /sys/fs/cgroup/cgroup.controllers ] ||
	mount -t cgroup2 cgroup2 /sys/fs/cgroup
echo +memory > /sys/fs/cgroup/cgroup.subtree_control
mkdir -p "$CG"
echo $((32 << 20)) > "$CG/memory.max"
: >"$TRACE/trace"
ok "swapon --discard=pages" swapon --discard=pages "/dev/$S"
out0=$(vmstat pswpout) in0=$(vmstat pswpin)
sh -c "echo \$\$ > $CG/cgroup.procs && exec memhog 72 2" >/tmp/sw-hog 2>&1 &
hog=$!
peak=0 valid_peak=0
while kill -0 $hog 2>/dev/null; do
	used=$(($(meminfo_kib SwapTotal) - $(meminfo_kib SwapFree)))
	[ "$used" -le "$peak" ] || peak=$used
	v=$(cstat "$S" valid_pages)
	[ "$v" -le "$valid_peak" ] || valid_peak=$v
	sleep 0.2
done
wait $hog
hrc=$?
diag "$(cat /tmp/sw-hog), swap used at most $peak KiB"
is "$hrc $(sed -n 's/.* bad=\([0-9]*\)$/\1/p' /tmp/sw-hog)" "0 0" \
	"memhog 72 MiB in a 32 MiB cgroup, 2 passes: every page came back"
out=$(( ($(vmstat pswpout) - out0) * 4 ))
in=$(( ($(vmstat pswpin) - in0) * 4 ))
diag "swapped out $out KiB, in $in KiB"
ok "more than the swap area went out to it ($out KiB > $((SWAP_MIB << 10)) KiB)" \
	test "$out" -gt $((SWAP_MIB << 10))
ok "and came back in ($in KiB)" test "$in" -gt $((SWAP_MIB << 10))
sleep 1
swapoff "/dev/$S"
ranges=$(trace_ranges "$S")
n=$(printf '%s\n' "$ranges" | grep -c .)
len=$(printf '%s\n' "$ranges" | awk 'NR == 1 { print $2 }')
diag "discard=pages: $n discards of ${len:-0} sectors"
ok "discard=pages: freed clusters were discarded ($n)" test "$n" -gt 0
# A swap cluster is 256 pages, or a huge page's 512 with THP swap.
odd=$(printf '%s\n' "$ranges" | awk -v l="$len" '$2 != l || $1 % l || $1 < 8')
is "$odd" "" "each a whole swap cluster ($len sectors), aligned, never the header page"
ok "cluster of 256 or 512 pages" test "${len:-0}" = 2048 -o "${len:-0}" = 4096
v=$(cstat "$S" valid_pages)
# What may stay: the header page and the clusters the allocator still
# holds per CPU (and per order since 6.12), or whose last slots wait in a
# slot cache (before 6.15): at most a quarter of the peak on 6.1 and 6.12.
diag "valid pages: at most $valid_peak while the hog ran, $v after"
ok "the hog's swap is given back: $v of $valid_peak pages left (at most a quarter)" \
	test "$v" -le $((valid_peak / 4))
rmdir "$CG"
check_dmesg "no kernel warning, oops, OOM kill or hung task" \
	'WARNING:|BUG:|Oops|general protection|Call Trace|blocked for more than|Out of memory|oom-kill|I/O error'
done_testing
