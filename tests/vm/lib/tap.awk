# Evaluate the framed TAP stream of the guest (results.log):
#   # test: NAME ... TAP lines ... # exit: NAME status=N
# Prints each test's lines with a header and a verdict; writes the totals as
# shell assignments (passed= failed= skipped=) to the file named by -v counts.
# -v sel="A B C": the tests that were meant to run (missing ones fail).

function finish(status,    msg, bad) {
	msg = ""; bad = 0
	if (skipall) {
		skipped++
		msg = " skipped"
	} else {
		if (status == "") {
			bad++; msg = msg " did not finish (crash or timeout);"
		} else if (!plan) {
			bad++; msg = msg " no plan;"
		} else if (planned != np + nf + ns) {
			bad++; msg = msg " planned " planned " but ran " (np + nf + ns) ";"
		}
		if (status != "" && status != 0 && nf == 0) {
			bad++; msg = msg " exit status " status ";"
		}
	}
	passed += np; failed += nf + bad; skipped += ns
	printf "# ---- %s: %d passed, %d failed%s%s\n", cur, np, nf + bad,
		(ns ? ", " ns " skipped" : ""), (msg != "" ? " -" msg : "")
	if (status == "" || bad) fails[cur] = 1
	cur = ""
}

BEGIN { n = split(sel, want, " ") }

/^# test: / {
	if (cur != "") finish("")
	cur = substr($0, 9); seen[cur] = 1
	plan = 0; planned = 0; skipall = 0; np = nf = ns = 0
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
	if (planned == 0 && toupper($0) ~ /# *SKIP/) skipall = 1
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
	printf "passed=%d failed=%d skipped=%d\n", passed, failed, skipped > counts
}
