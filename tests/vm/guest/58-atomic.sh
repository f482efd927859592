#!/bin/sh
# Atomic writes (Linux 6.11+: RWF_ATOMIC, REQ_ATOMIC, statx
# STATX_WRITE_ATOMIC): all of a write or none of it, whatever cuts it.
#  - atomic_write_max_kib: a bad value fails with EINVAL and one line; the
#    limits reach sysfs (queue/atomic_write_*) and statx, capped at 16
#    flash pages and at the largest power of two dividing a shard's stripe;
#    the boundary is the maximum itself (merged atomic writes stay in one
#    aligned window: one stripe, one lock hold), also below a flash page;
#  - RWF_ATOMIC refusals: misaligned, not a power of two, over the max
#    (EINVAL), a device without atomic writes (EOPNOTSUPP);
#  - power cuts under 64 KiB atomic writers, random mode (and once all):
#    with the cache
#    (as large as the device, and 1 MiB: write-backs), without it, FUA,
#    flushes racing, GC under program failures: 0 torn units after each
#    cut, also with 64, 32 and 4 KiB atomic writes inside each other and
#    4 KiB plain and FUA writes and discards into them (cached units
#    overwritten, written through and discarded in part); the control,
#    plain writes with the cache in random mode, tears
#    (so the check can fail);
#  - the device's trace marks atomic writes, and ftlsim replays it to the
#    module's counters.
# 6.1 has none of it: the default is 0, a non-zero value is refused at
# power-on naming 6.11, and RWF_ATOMIC fails with EOPNOTSUPP.
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
need_cmd atomicio ftlsim blkop
if kernel_at_least 6.11; then
	plan 32
else
	plan 6
fi

cleanup() {
	for n in bad at0 at1 at2 at3 at4; do
		[ -d "$CFS/$n" ] && { echo 0 > "$CFS/$n/power"; rmdir "$CFS/$n"; }
	done
	rm -f /tmp/at.ftlblk /tmp/at.json
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

q() { cat "/sys/block/$1/queue/$2"; }
off() { echo 0 > "$CFS/$1/power" && rmdir "$CFS/$1"; }
limits() { echo "$(q "$1" atomic_write_max_bytes) $(q "$1" atomic_write_unit_min_bytes) $(q "$1" atomic_write_unit_max_bytes) $(q "$1" atomic_write_boundary_bytes)"; }

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
mkdir "$CFS/bad"
is "$(cat "$CFS/bad/atomic_write_max_kib")" "$(kernel_at_least 6.11 && echo 64 || echo 0)" \
	"default atomic_write_max_kib: 64 from 6.11, 0 before"
rmdir "$CFS/bad"

if ! kernel_at_least 6.11; then
	is "$(power_fails at0 size=8 atomic_write_max_kib=64 | tr '\n' '|')" \
		"refused|invalid atomic_write_max_kib 64: allowed 0 on this kernel (atomic writes from Linux 6.11)|" \
		"6.1: atomic_write_max_kib=64 refused, naming 6.11"
	D=$(mkdev at1 size=8 pages_per_block=16)
	is "$(st "$D" atomic_write_max_kib) $(atomicio statx "/dev/$D")" "0 0 0 0 0" \
		"6.1: no atomic writes in sysfs or statx"
	is "$(atomicio write "/dev/$D" 0 4096 atomic)" "EOPNOTSUPP" \
		"6.1: RWF_ATOMIC fails with EOPNOTSUPP (no such flag before 6.11)"
	off at1
	check_dmesg
	done_testing
	exit 0
fi

is "$(power_fails at0 size=8 atomic_write_max_kib=48 | tr '\n' '|')" \
	"refused|invalid atomic_write_max_kib 48: allowed 0 or a power of two 1..1024 >= blocksize (KiB; Linux 6.11+)|" \
	"atomic_write_max_kib=48 (no power of two): refused, one line"
is "$(power_fails at0 size=8 blocksize=4096 atomic_write_max_kib=2 | tr '\n' '|')" \
	"refused|invalid atomic_write_max_kib 2: allowed 0 or a power of two 1..1024 >= blocksize (KiB; Linux 6.11+)|" \
	"atomic_write_max_kib below the 4 KiB logical block: refused"

# ---- limits ---------------------------------------------------------------
D=$(mkdev at1 size=64)
is "$(st "$D" atomic_write_max_kib) $(limits "$D")" "64 65536 512 65536 65536" \
	"64 KiB atomic writes of 512-byte units, never across a 64 KiB boundary"
is "$(atomicio statx "/dev/$D")" "1 512 65536 1" "statx: STATX_WRITE_ATOMIC, unit 512..65536, 1 segment"
is "$(atomicio write "/dev/$D" 4096 8192 atomic)" "EINVAL" "RWF_ATOMIC at an offset not aligned to its length: EINVAL"
is "$(atomicio write "/dev/$D" 0 12288 atomic)" "EINVAL" "RWF_ATOMIC of 12 KiB (no power of two): EINVAL"
is "$(atomicio write "/dev/$D" 0 131072 atomic)" "EINVAL" "RWF_ATOMIC of 128 KiB (over the max): EINVAL"
KEYS="atomic_writes host_pages_written"
snap "$D"
is "$(atomicio write "/dev/$D" 65536 65536 atomic)" "ok" "RWF_ATOMIC of 64 KiB at 64 KiB: written"
is "$(deltas "$D")" "atomic_writes=1 host_pages_written=16" "counted: 1 atomic write of 16 pages"
off at1
D=$(mkdev at1 size=8 pages_per_block=12 atomic_write_max_kib=1024)
is "$(st "$D" atomic_write_max_kib) $(limits "$D")" "16 16384 512 16384 16384" \
	"12 pages a block: capped at 4 pages, the largest power of two dividing the stripe"
off at1
D=$(mkdev at1 size=64 page_size=16384 pages_per_block=32 blocksize=4096 atomic_write_max_kib=1024)
is "$(st "$D" atomic_write_max_kib) $(limits "$D")" "256 262144 4096 262144 262144" \
	"16 KiB pages: capped at 16 flash pages (one lock hold), units of one 4 KiB block"
off at1
D=$(mkdev at1 size=8 pages_per_block=16 atomic_write_max_kib=1)
is "$(st "$D" atomic_write_max_kib) $(limits "$D") $(atomicio write "/dev/$D" 1024 1024 atomic)" \
	"1 1024 512 1024 1024 ok" "atomic_write_max_kib=1, below a 4 KiB page: 1 KiB atomic writes served"
off at1
D=$(mkdev at1 size=8 pages_per_block=16 atomic_write_max_kib=0)
is "$(st "$D" atomic_write_max_kib) $(limits "$D") $(atomicio write "/dev/$D" 0 4096 atomic)" \
	"0 0 0 0 0 EOPNOTSUPP" "atomic_write_max_kib=0: no limits, RWF_ATOMIC fails with EOPNOTSUPP"
off at1

# ---- power cuts -----------------------------------------------------------
# 128 units of 64 KiB (8 MiB) on a 16 MiB device of 64 KiB erase blocks
# (the atomic boundary), written by 2 writers
# (units 0-63 and 64-127) until the cut; then every unit must carry one
# stamp. cycle NAME MODE [flusher]: fill, write, cut after a while, check;
# prints the torn units.
UNIT=65536
cycle() {
	_d=/dev/$(cat "$CFS/$1/index" | sed 's/^/ftlblk/')
	echo 0 > "/sys/block/${_d#/dev/}/ftl/power_cut"
	# The first flush after a cut that dropped cached writes fails, once
	# (docs/semantics.md): take that report before the fill's fsync.
	blkop fsync "$_d" >/dev/null 2>&1
	[ "$(atomicio fill "$_d" 0 128 $UNIT)" = ok ] || { echo fill-failed; return; }
	atomicio writer "$_d" 0 64 $UNIT "$2" 11 > /tmp/at.w1 &
	_w1=$!
	atomicio writer "$_d" 64 64 $UNIT "$2" 12 > /tmp/at.w2 &
	_w2=$!
	_f=
	if [ -n "$3" ]; then
		( while :; do blkop fsync "$_d" >/dev/null 2>&1; done ) &
		_f=$!
	fi
	sleep 1
	echo 1 > "/sys/block/${_d#/dev/}/ftl/power_cut"
	wait $_w1 $_w2
	[ -n "$_f" ] && { kill $_f; wait $_f 2>/dev/null; }
	echo 0 > "/sys/block/${_d#/dev/}/ftl/power_cut"
	diag "$1 $2: writers $(cat /tmp/at.w1) / $(cat /tmp/at.w2)" >&2
	# both writers wrote, and the power cut stopped them (EIO)
	if ! awk '$1 > 0 && $2 == "EIO" { n++ } END { exit n != 2 }' /tmp/at.w1 /tmp/at.w2; then
		echo writers-failed
		return
	fi
	atomicio check "$_d" 0 128 $UNIT | awk '$1 == 128 { print $2; exit } { print "check-failed" }'
}
# cuts NAME MODE [flusher]: two cycles, their torn units summed; a cycle
# that checked nothing makes it a word, never a number.
cuts() {
	_a=$(cycle "$@")
	_b=$(cycle "$@")
	case "$_a$_b" in
	''|*[!0-9]*) echo "$_a/$_b" ;;
	*) echo $((_a + _b)) ;;
	esac
}
run_config() {	# LABEL NAME MODE FLUSHER ATTR=VALUE...
	_l=$1 _n=$2 _m=$3 _fl=$4
	shift 4
	D=$(mkdev "$_n" size=16 pages_per_block=16 power_cut_mode=random "$@")
	is "$(cuts "$_n" "$_m" "$_fl")" 0 "$_l: 2 cuts, 0 torn units"
	TOTAL_CUTS=$((TOTAL_CUTS + 2))
	LOST=$((LOST + $(st "$D" atomic_writes_lost_at_power_cut)))
	SERVED=$((SERVED + $(st "$D" atomic_writes)))
	echo 0 > "$CFS/$_n/power"
	rmdir "$CFS/$_n"
}
TOTAL_CUTS=0 LOST=0 SERVED=0
run_config "cache as large as the device" at2 atomic "" write_cache=1
run_config "1 MiB cache (write-backs of units)" at2 atomic "" write_cache=1 cache_mib=1
run_config "power_cut_mode all, 1 MiB cache" at2 atomic "" write_cache=1 cache_mib=1 power_cut_mode=all
run_config "no cache" at2 atomic "" write_cache=0
run_config "FUA writes with the cache" at2 atomic-fua "" write_cache=1
run_config "flushes racing, 1 MiB cache" at2 atomic flush write_cache=1 cache_mib=1
run_config "64, 32, 4 KiB atomic, 4 KiB plain, FUA and discards inside each other, full cache" \
	at2 atomic-mixed "" write_cache=1
# (20 per million: the 200000 or so programs of a cycle retire a few blocks
# of the 52 spare ones, and the device lives through both cycles)
run_config "GC at 20 % op with program failures" at2 atomic "" write_cache=1 cache_mib=1 \
	op_percent=20 program_fail_ppm=20
is "$TOTAL_CUTS" 16 "16 power cuts, 14 of them in random mode"
ok "atomic writes were served ($SERVED) and cuts dropped some whole ($LOST)" \
	test "$SERVED" -gt 0 -a "$LOST" -gt 0
# The control: the same writers without RWF_ATOMIC tear.
D=$(mkdev at3 size=16 pages_per_block=16 power_cut_mode=random write_cache=1)
ctl=$(cuts at3 plain)
ok "control: plain 64 KiB writes, cache in random mode: $ctl torn units after 2 cuts" \
	test "$ctl" -gt 0
echo 0 > "$CFS/at3/power"
rmdir "$CFS/at3"

# ---- trace and replay --------------------------------------------------------
D=$(mkdev at4 size=8 pages_per_block=32 op_percent=10)
echo 1 > "/sys/block/$D/ftl/reset_stats"
TR=/sys/kernel/tracing
: > $TR/trace
echo 1 > $TR/events/ftlblk/ftlblk_request/enable
atomicio fill "/dev/$D" 0 128 $UNIT > /dev/null
is "$(atomicio writer "/dev/$D" 0 128 $UNIT atomic 5 1000)" "1000 ok" \
	"1000 atomic writes of 64 KiB on an 8 MiB device (GC at 10 % op, half an erase block each)"
echo 0 > $TR/events/ftlblk/ftlblk_request/enable
sed -n 's/.*ftlblk_request: //p' $TR/trace > /tmp/at.ftlblk
is "$(grep -c 'op=write .*flags=atomic class=0$' /tmp/at.ftlblk)" "$(st "$D" atomic_writes)" \
	"the trace marks every atomic write (flags=atomic): as many as atomic_writes"
ok "ftlsim replays the device's trace" sh -c \
	"ftlsim --size 8M --pages-per-block 32 --op-percent 10 --trace /tmp/at.ftlblk --trace-format ftlblk --json > /tmp/at.json"
sim=$(sed -n 's/^  "\(host_pages_written\|nand_pages_written\|gc_relocations\|erases\)": \(.*\),$/\1=\2/p' /tmp/at.json | sort | tr '\n' ' ')
mod=$(for k in erases gc_relocations host_pages_written nand_pages_written; do printf '%s=%s ' $k "$(st "$D" $k)"; done)
is "$sim" "$mod" "ftlsim = module: $mod"
ok "the replay made as many atomic writes ($(sed -n 's/^  "atomic_writes": \(.*\),$/\1/p' /tmp/at.json))" \
	test "$(sed -n 's/^  "atomic_writes": \(.*\),$/\1/p' /tmp/at.json)" = "$(st "$D" atomic_writes)"
echo 0 > "$CFS/at4/power"
check_dmesg "no kernel warnings (I/O errors while the power is off are expected)" \
	'WARNING:|BUG:|Oops|general protection|Call Trace|refcount_t:|corruption'
done_testing
