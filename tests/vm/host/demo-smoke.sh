#!/bin/bash
# make demo in miniature: demo/run on a 64 MiB device with a short workload
# into a temporary OUT; checks that the table and the PNG are produced and
# that the device saw discards exactly where it should (-o discard: exactly
# the pages of the deleted files; fstrim: some; no discard: none), that
# every regime ran the same file operations, and that discard lowered the
# device's WAF.
# Prints TAP and ends with "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib/replay.sh
. "$top/tests/vm/lib/replay.sh"
out=$(mktemp -d /tmp/demo-smoke.XXXXXX)
trap 'rm -rf "$out"' EXIT

n=0 passed=0 failed=0
point() {	# DESC CMD...: a test point passing when CMD succeeds
	local desc=$1
	shift
	n=$((n + 1))
	if "$@" 2>/dev/null; then
		echo "ok $n - $desc"
		passed=$((passed + 1))
	else
		echo "not ok $n - $desc"
		failed=$((failed + 1))
	fi
}
stat_of() {	# REGIME NAME: the value the guest recorded from the device
	sed -n "s/^$2=//p" "$out/data/$1.final" 2>/dev/null | head -n 1
}

echo "1..12"
log=$out/demo.log
VM_TIMEOUT=600 "$top/demo/run" SIZE=64 WRITES=2 SEED=7 OUT="$out" >"$log" 2>&1
rc=$?
point "demo/run SIZE=64 WRITES=2 exits 0" [ $rc = 0 ]
[ $rc = 0 ] || tail -n 30 "$log" | sed 's/^/#   /'

table=$out/table.txt
rows=$(grep -cE '^vfat (no discard|-o discard|\+ fstrim) +[0-9]' "$table" 2>/dev/null)
point "table.txt has a row for each of the 3 regimes" [ "${rows:-0}" = 3 ]
[ -s "$table" ] && sed 's/^/#   /' "$table"

sig=$(head -c 8 "$out/demo.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')
point "demo.png is a PNG (signature $sig)" [ "$sig" = 89504e470d0a1a0a ]

point "the same file operations in every regime (ops checksum)" \
	grep -q 'every regime ran the same' "$table"

nd=$(stat_of vfat-nodiscard pages_discarded)
point "no discard: pages_discarded = 0 (got '$nd')" [ "$nd" = 0 ]
nr=$(stat_of vfat-nodiscard discard_requests)
point "no discard: discard_requests = 0 (got '$nr')" [ "$nr" = 0 ]

# vfat -o discard discards every cluster it frees, at once; with 4 KiB
# clusters on 4 KiB flash pages (demo/guest.sh) that is one page per 4 KiB
# the deleted files had allocated, as the workload saw with stat() before
# each unlink: an expectation computed without asking the device.
d=$(stat_of vfat-discard pages_discarded)
del=$(stat_of vfat-discard deleted_alloc_bytes)
ps=$(stat_of vfat-discard page_size)
exact=false
[[ $d =~ ^[0-9]+$ && $del =~ ^[0-9]+$ && $ps =~ ^[0-9]+$ ]] && [ "$ps" -gt 0 ] &&
	[ "$d" -gt 0 ] && [ "$d" = $((del / ps)) ] && exact=true
point "-o discard: pages_discarded = pages the deleted files held (got '$d', deleted $del bytes / $ps)" $exact

t=$(stat_of vfat-fstrim pages_discarded)
point "fstrim: pages_discarded > 0 (got '$t')" [ "${t:-0}" -gt 0 ]

# ftlsim and the module are one FTL (tests/vm/lib/replay.sh)
make -s -C "$top/tools/ftlsim" >"$out/ftlsim-build.log" 2>&1 ||
	sed 's/^/# ftlsim build: /' "$out/ftlsim-build.log"
for r in vfat-nodiscard vfat-discard vfat-fstrim; do
	same=false
	got=$(replay_check "$out" "$r" "$top/tools/ftlsim/ftlsim") && same=true
	point "$r: ftlsim on the device's trace = kernel (WAF within 1 %, host/discarded pages equal): $got" $same
	$same || head -n 5 "$out/$r.sim.err" | sed 's/^/#   /'
done

# waf is printed with 3 decimals: compare as integers in thousandths
w_nd=$(stat_of vfat-nodiscard waf) w_d=$(stat_of vfat-discard waf)
lt=false
[[ $w_nd =~ ^[0-9]+\.[0-9]+$ && $w_d =~ ^[0-9]+\.[0-9]+$ ]] &&
	[ $((10#${w_d/./})) -lt $((10#${w_nd/./})) ] && lt=true
point "-o discard has a lower WAF than no discard ($w_d < $w_nd)" $lt

echo "$passed passed, $failed failed"
[ $failed = 0 ]
