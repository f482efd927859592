#!/bin/sh
# ftl/stat: every statistic as a "name value" line from one snapshot. Each
# line has its one-value file and, on an idle device, the same value; a
# device whose shards GC while two writers run never shows a snapshot in
# which the NAND wrote fewer pages than the host, or whose waf is not
# nand_pages_written / host_pages_written of that same snapshot (read as
# separate files, the three can come from different moments).
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
need_cmd fio
plan 8

cleanup() {
	for _p in $BG; do kill "$_p" 2>/dev/null; done
	wait 2>/dev/null
	[ -d "$CFS/st" ] && rmdir "$CFS/st"
	rm -f /tmp/st-*
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
BG=
trap cleanup EXIT

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
D=$(mkdev st size=32 pages_per_block=64 op_percent=10 shards=2)
S=/sys/block/$D/ftl/stat
dd if=/dev/urandom of="/dev/$D" bs=1M count=32 oflag=direct 2>/dev/null

# ---- idle: every line is its file --------------------------------------
cat "$S" > /tmp/st-snap
n=0 bad=
while read -r name value; do
	n=$((n + 1))
	[ "$(st "$D" "$name")" = "$value" ] || bad="$bad $name=$value/$(st "$D" "$name")"
done < /tmp/st-snap
ok "ftl/stat has $n lines, at least 45" test "$n" -ge 45
is "${bad# }" "" "idle: each line's value is its one-value file's"
is "$(awk '{ print NF }' /tmp/st-snap | sort -u)" 2 "every line is 'name value'"
is "$(grep -c '^waf [0-9]*\.[0-9][0-9][0-9]$' /tmp/st-snap) $(grep -c '^erase_mean [0-9]*\.[0-9][0-9][0-9]$' /tmp/st-snap)" \
	"1 1" "waf and erase_mean print three decimals, as their files"

# ---- under load: counters of one snapshot agree ------------------------
for j in 1 2; do
	fio --eta=never --name=w$j --filename="/dev/$D" --rw=randwrite --bs=4k \
		--direct=1 \
		--time_based --runtime=8 --ioengine=psync --randseed=$j \
		--output=/dev/null 2>/dev/null &
	BG="$BG $!"
done
sleep 0.5
reads=0 viol=0 r0=$(st "$D" gc_runs)
while [ $reads -lt 300 ]; do
	# shellcheck disable=SC2046 # name value pairs, split on purpose
	set -- $(grep -E '^(host_pages_written|nand_pages_written|waf) ' "$S" | tr '\n' ' ')
	host=$2 nand=$4 waf=$6
	want=$((nand * 1000 / host))
	want=$((want / 1000)).$(printf '%03d' $((want % 1000)))
	if [ "$nand" -lt "$host" ] || [ "$waf" != "$want" ]; then
		viol=$((viol + 1))
		[ $viol -le 3 ] && diag "snapshot: host $host nand $nand waf $waf (computed $want)"
	fi
	reads=$((reads + 1))
done
gc=$(($(st "$D" gc_runs) - r0))
wait
BG=
is "$viol" 0 "$reads snapshots under two writers: nand >= host and waf = nand / host in each"
ok "GC ran meanwhile ($gc victims)" test "$gc" -gt 0
rmdir "$CFS/st"
ok "modprobe -r ftlblk" modprobe -r ftlblk
done_testing
