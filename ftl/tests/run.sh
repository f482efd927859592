#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run.sh BINARY... - run cmocka test binaries, show their output, and end
# with one line "N passed, N failed" summed over every test case of every
# binary. A binary that dies before its summary (sanitizer abort, crash)
# counts all of its cases that did not report PASSED as failed.
# Exit status: 0 only if nothing failed.
set -u

total_pass=0
total_fail=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

for bin in "$@"; do
	echo "=== $bin"
	start=$(date +%s)
	"$bin" >"$log" 2>&1
	rc=$?
	cat "$log"
	end=$(date +%s)
	ran=$(sed -n 's/^\[==========\] .*Running \([0-9][0-9]*\) test(s)\..*/\1/p' "$log" | head -n1)
	pass=$(sed -n 's/^\[  PASSED  \] \([0-9][0-9]*\) test(s)\..*/\1/p' "$log" | head -n1)
	fail=$(sed -n 's/^\[  FAILED  \] \([0-9][0-9]*\) test(s).*/\1/p' "$log" | head -n1)
	ran=${ran:-0}
	pass=${pass:-0}
	fail=${fail:-0}
	if [ "$ran" -eq 0 ]; then
		# not even the header: count the binary as one failed case
		fail=1
	elif [ $((pass + fail)) -lt "$ran" ]; then
		fail=$((ran - pass))
	fi
	if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
		fail=1
	fi
	echo "=== $bin: $pass passed, $fail failed, exit $rc, $((end - start)) s"
	total_pass=$((total_pass + pass))
	total_fail=$((total_fail + fail))
done

echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
