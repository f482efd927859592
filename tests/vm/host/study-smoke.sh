#!/bin/bash
# make study in miniature: demo/study with two filesystems, all their
# regimes, a short workload, into a temporary OUT (about 2.5 minutes).
# Checks that study.md and
# study.png are produced with a row for every regime (a regime silently
# dropped fails), that every regime ran the same file operations, that the
# regimes without discard sent none and every other regime some, that the
# discard ranges traced are the ones the device counted, and that the
# requests each regime sent, replayed through ftlsim, give exactly the
# kernel's counters.
# Prints TAP and ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib/host-tap.sh
. "$top/tests/vm/lib/host-tap.sh"
# shellcheck source-path=SCRIPTDIR source=../lib/replay.sh
. "$top/tests/vm/lib/replay.sh"
out=$(mktemp -d /tmp/study-smoke.XXXXXX)
# kept when a point fails, to look at
trap '[ "$failed" = 0 ] && rm -rf "$out" || echo "# kept: $out"' EXIT

# ext4 (online discard at journal commit) and f2fs (discards in the
# background, and at umount): 6 regimes. 256 MiB, below the study's 320
# (which XFS needs, not these two; at 160 MiB F2FS's own reserve leaves no
# room for the 60 % fill); WRITES 1.0 deletes about 0.4 capacities of files
# after the fill.
# (Btrfs's discard=async would send nothing in a run this short: it waits
# 120 s before it discards; make study gives it the time, IDLE.)
fss="ext4 f2fs"
regimes="ext4-nodiscard ext4-discard ext4-fstrim f2fs-nodiscard f2fs-discard f2fs-fstrim"
nreg=$(echo "$regimes" | wc -w)

stat_of() {	# REGIME NAME: the value the guest recorded (final) or demo/run computed (perf)
	sed -n "s/^$2=//p" "$out/data/$1.final" "$out/data/$1.perf" 2>/dev/null | head -n 1
}

echo "1..$((5 + 4 * nreg))"
log=$out/study.log
VM_TIMEOUT=900 "$top/demo/study" FS="$fss" SIZE=256 WRITES=1.0 SEED=3 IDLE=5 OUT="$out" >"$log" 2>&1
rc=$?
[ $rc = 0 ]
tap $? "demo/study FS=\"$fss\" SIZE=256 WRITES=1.0 exits 0"
[ $rc = 0 ] || tail -n 30 "$log" | sed 's/^/#   /'

md=$out/study.md
got=$(find "$out/data" -name '*.final' -printf '%f\n' 2>/dev/null | sed 's/\.final$//' | sort | xargs)
want=$(echo "$regimes" | tr ' ' '\n' | sort | xargs)
[ "$got" = "$want" ]
tap $? "the regimes run are exactly: $want (got: $got)"

# study.md: a summary row per regime (ranked twice) and a row per regime
# in its filesystem's table, named as report.py names them.
rows=$(grep -cE '^\| [0-9]+ \| (ext4|f2fs) ' "$md" 2>/dev/null)
[ "${rows:-0}" = "$nreg" ]
tap $? "study.md ranks all $nreg regimes (got ${rows:-0} summary rows)"
# each label: twice in the summary (ranked by WAF and by latency) and once
# in each of its filesystem's two tables
miss=
for l in "ext4 nodiscard" "ext4 -o discard" "ext4 + fstrim" "f2fs nodiscard" \
	"f2fs default (discard)" "f2fs + fstrim"; do
	c=$(grep -oF "| $l |" "$md" 2>/dev/null | wc -l)
	[ "$c" = 4 ] || miss="$miss '$l'($c)"
done
[ -z "$miss" ]
tap $? "study.md has each regime twice in the summary and once in each table of its filesystem${miss:+ (not 4 times:$miss)}"
[ -s "$md" ] && sed -n '/^## Summary/,/^## Per/p' "$md" | sed 's/^/#   /'

sig=$(head -c 8 "$out/study.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')
[ "$sig" = 89504e470d0a1a0a ]
tap $? "study.png is a PNG (signature $sig)"

# Per regime: what the device saw must match the regime.
sums=$(for r in $regimes; do stat_of "$r" ops_checksum; done | sort -u | xargs)
make -s -C "$top/tools/ftlsim" >"$out/ftlsim-build.log" 2>&1 ||
	sed 's/^/# ftlsim build: /' "$out/ftlsim-build.log"
for r in $regimes; do
	s=$(stat_of "$r" ops_checksum)
	ok=false
	[ -n "$s" ] && [ "$sums" = "$s" ] && ok=true
	$ok
	tap $? "$r: the same file operations as every other regime (ops checksum $s; all: $sums)"

	req=$(stat_of "$r" discard_requests) pd=$(stat_of "$r" pages_discarded)
	ok=false
	case $r in
	*-nodiscard)
		[ "$req" = 0 ] && [ "$pd" = 0 ] && ok=true
		$ok
		tap $? "$r: no discard reached the device (requests '$req', pages '$pd')" ;;
	*)
		[ "${req:-0}" -gt 0 ] && [ "${pd:-0}" -gt 0 ] && ok=true
		$ok
		tap $? "$r: discards reached the device (requests '$req', pages '$pd')" ;;
	esac

	# every discard range the device counted is in the tracepoint's file
	traced=$(wc -l <"$out/traces/$r.discard" 2>/dev/null)
	ranges=$(stat_of "$r" discard_ranges)
	tsect=$(awk '{ sub(/.*nr_sectors=/, ""); s += $1 } END { print s + 0 }' "$out/traces/$r.discard" 2>/dev/null)
	sect=$(stat_of "$r" discard_sectors)
	ok=false
	[ -n "$ranges" ] && [ "$traced" = "$ranges" ] && [ "$tsect" = "$sect" ] && ok=true
	$ok
	tap $? "$r: ftlblk_discard trace = device counters (ranges $traced/$ranges, sectors $tsect/$sect)"

	# ftlsim replays the regime's requests to the kernel's counters
	same=false
	got=$(replay_check "$out" "$r" "$top/tools/ftlsim/ftlsim") && same=true
	$same
	tap $? "$r: ftlsim on the device's trace = kernel (WAF within 1 %, host/discarded pages equal): $got"
	$same || head -n 5 "$out/$r.sim.err" | sed 's/^/#   /'
done

tap_summary
