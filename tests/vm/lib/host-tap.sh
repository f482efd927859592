# shellcheck shell=bash
# TAP for the host-side VM tests (tests/vm/host/*.sh), sourced:
#   tap STATUS DESC [DIAG]   test point: passes when STATUS is 0; DIAG is
#                            shown as "#" lines when it fails
#   tap_summary              print "N passed, N failed"; return 1 on a failure
n=0 failed=0

tap() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
		[ -n "${3:-}" ] && printf '%s\n' "$3" | sed 's/^/#   /'
	fi
	return 0
}

tap_summary() {
	echo "$((n - failed)) passed, $failed failed"
	[ "$failed" = 0 ]
}
