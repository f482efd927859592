# shellcheck shell=bash
# The demo's and the study's smoke tests (tests/vm/host/*-smoke.sh) check
# that ftlsim and the module are one FTL: replaying the requests a regime
# sent to the device (the device's own ftlblk:ftlblk_request events, saved
# by demo/run in OUT/traces: blktrace's version-1 traces show write-zeroes
# as writes before 7.0 and drop them from 7.0) through ftlsim with the geometry the guest
# recorded must give the kernel's WAF within 1 %, and exactly the same host
# pages written and pages discarded. Sourced:
#   replay_check OUT REGIME FTLSIM
# prints "kernel 'WAF HOST DISCARDED', ftlsim 'WAF HOST DISCARDED'" and
# succeeds when they agree; ftlsim's stderr goes to OUT/REGIME.sim.err.

replay_check() {
	local out=$1 r=$2 sim=$3 f k s
	f=$out/data/$r.final
	_final() { sed -n "s/^$1=//p" "$f" 2>/dev/null | head -n 1; }
	k="$(_final waf) $(_final host_pages_written) $(_final pages_discarded)"
	s=$("$sim" --trace "$out/traces/$r.requests" \
		--trace-format ftlblk --size "$(_final size_mib)M" \
		--op-percent "$(_final op_percent)" \
		--policy "$(_final gc_policy)" \
		--pages-per-block "$(_final pages_per_block)" \
		--json 2>"$out/$r.sim.err" |
		python3 -c 'import json, sys; d = json.load(sys.stdin)
print("%.3f %d %d" % (d["waf"], d["host_pages_written"], d["pages_discarded"]))' 2>/dev/null)
	echo "kernel '$k', ftlsim '$s'"
	python3 -c "import sys; k, s = '$k'.split(), '$s'.split()
sys.exit(not (len(k) == len(s) == 3 and k[1:] == s[1:] and
              abs(float(s[0]) - float(k[0])) <= 0.01 * float(k[0])))" 2>/dev/null
}
