# Percentiles of one regime's ftlblk trace events (demo/guest.sh saves them):
#   awk -f demo/events.awk REGIME.complete REGIME.discard | sort -k1,1 -k2,2n |
#       awk -v stage=2 -f demo/events.awk
# Stage 1 (the default) turns each event into "CATEGORY VALUE":
#   ftlblk_complete lines ("ftlblk0 op=write ... latency_ns=L") -> op L
#   ftlblk_discard lines ("ftlblk0 sector=S nr_sectors=N") -> discard_bytes 512N
# Stage 2 reads them sorted by category, then value, and prints NAME=VALUE:
#   OP_completions, OP_p50_ns, OP_p99_ns, OP_p999_ns, OP_max_ns, OP_ns_total
#   (OP read, write, flush, discard, write-zeroes; "-" in names becomes "_")
#   discard_ranges_traced, discard_bytes_p50, _p99, _max, _total
# A percentile is the nearest rank: the value at rank ceil(p N) of N sorted
# values, computed exactly in integers (p99.9: ceil(999 N / 1000)).
stage != 2 {
	op = lat = nr = ""
	for (i = 2; i <= NF; i++) {
		if ($i ~ /^op=/) op = substr($i, 4)
		else if ($i ~ /^latency_ns=/) lat = substr($i, 12)
		else if ($i ~ /^nr_sectors=/) nr = substr($i, 12)
	}
	if (op != "" && lat != "") print op, lat
	else if (op == "" && nr != "") printf "discard_bytes %.0f\n", nr * 512
	else { print "events.awk: " FILENAME ": unreadable line " FNR ": " $0 > "/dev/stderr"; bad = 1; exit 1 }
	next
}
function rank(num, den) { return int((num * n + den - 1) / den) }	# ceil(num n / den)
function flush_cat(   name) {
	if (n == 0) return
	name = cat
	gsub(/-/, "_", name)
	if (cat == "discard_bytes") {
		printf "discard_ranges_traced=%d\n", n
		printf "discard_bytes_p50=%s\ndiscard_bytes_p99=%s\ndiscard_bytes_max=%s\ndiscard_bytes_total=%.0f\n",
			v[rank(50, 100)], v[rank(99, 100)], v[n], sum
	} else {
		printf "%s_completions=%d\n", name, n
		printf "%s_p50_ns=%s\n%s_p99_ns=%s\n%s_p999_ns=%s\n%s_max_ns=%s\n%s_ns_total=%.0f\n",
			name, v[rank(50, 100)], name, v[rank(99, 100)],
			name, v[rank(999, 1000)], name, v[n], name, sum
	}
	n = 0
	sum = 0
}
stage == 2 {
	if ($1 != cat) { flush_cat(); cat = $1 }
	v[++n] = $2
	sum += $2
}
END {
	if (bad) exit 1
	if (stage == 2) flush_cat()
}
