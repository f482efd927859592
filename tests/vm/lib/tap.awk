# Evaluate the framed TAP stream of the guest (results.log):
#   # test: NAME ... TAP lines ... # exit: NAME status=N
# Prints each test's lines with a header and a verdict; writes the totals as
# shell assignments (passed= failed= skipped= skipped_tests=) to the file
# named by -v counts.
# -v sel="A B C": the tests that were meant to run (missing ones fail).
# -v allow_skip="A B": tests that may skip as a whole ("1..0 # SKIP reason");
#   any other test that skips as a whole, or skips (or TODOs) any point,
#   counts one more failure, since on the kernel it was written for a skip
#   means that the test proved nothing.
#
# Every test, skipped or not, must finish and exit 0. A plan of 1..0 without
# a SKIP directive (no test point ran, and nothing said why) is a failure.

function finish(status,    msg, bad) {
	msg = ""; bad = 0
	if (status == "") {
		bad++; msg = msg " did not finish (crash or timeout);"
	} else if (status != 0 && nf == 0) {
		bad++; msg = msg " exit status " status ";"
	}
	if (skipall) {
		skipped++
		skipped_tests = skipped_tests (skipped_tests == "" ? "" : " ") cur
		msg = msg " skipped as a whole: " skipreason ";"
		if (!(cur in may_skip)) {
			bad++; msg = msg " a skip is not allowed for this test;"
		}
	} else if (!plan) {
		bad++; msg = msg " no plan;"
	} else if (planned == 0) {
		bad++; msg = msg " plan 1..0 without SKIP: nothing was tested;"
	} else if (planned != np + nf + ns) {
		bad++; msg = msg " planned " planned " but ran " (np + nf + ns) ";"
	}
	if (ns && !(cur in may_skip)) {
		bad++; msg = msg " skipped points are not allowed for this test;"
	}
	passed += np; failed += nf + bad; skipped += ns
	printf "# ---- %s: %d passed, %d failed%s%s\n", cur, np, nf + bad,
		(ns ? ", " ns " skipped" : ""), (msg != "" ? " -" msg : "")
	if (status == "" || bad) fails[cur] = 1
	cur = ""
}

BEGIN {
	n = split(sel, want, " ")
	m = split(allow_skip, a, " ")
	for (i = 1; i <= m; i++) may_skip[a[i]] = 1
}

/^# test: / {
	if (cur != "") finish("")
	cur = substr($0, 9); seen[cur] = 1
	plan = 0; planned = 0; skipall = 0; skipreason = ""; np = nf = ns = 0
	print "# ---- " cur
	next
}
/^# exit: / {
	if (cur != "") {
		st = $0; sub(/.*status=/, "", st)
		finish(st + 0)
	}
	next
}
/^# vm: / { next }
cur == "" { next }
{ print }
/^1\.\.[0-9]+/ {
	plan = 1; planned = $0; sub(/^1\.\./, "", planned); planned += 0
	if (planned == 0 && toupper($0) ~ /# *SKIP/) {
		skipall = 1
		skipreason = $0; sub(/^[^#]*# *[Ss][Kk][Ii][Pp] */, "", skipreason)
	}
	next
}
/^ok( |$)/ {
	if (toupper($0) ~ /# *SKIP/) ns++; else np++
	next
}
/^not ok( |$)/ {
	if (toupper($0) ~ /# *TODO/) ns++; else nf++
	next
}

END {
	if (cur != "") finish("")
	for (i = 1; i <= n; i++)
		if (!(want[i] in seen)) {
			printf "# ---- %s: not run\n", want[i]
			failed++
		}
	printf "passed=%d failed=%d skipped=%d skipped_tests='%s'\n", passed,
		failed, skipped, skipped_tests > counts
}
