# Host write throughput over time, from one regime's samples (the CSV that
# demo-workload writes: elapsed_s is the guest's wall clock, CLOCK_MONOTONIC,
# 0.1 s resolution; host_pages_written the device's counter):
#   awk -F, -v ps=PAGE_SIZE -v min_dt=1 -v summary=FILE -f demo/rate.awk REGIME.csv
# stdout, CSV: one row per interval of consecutive samples at least min_dt
# seconds long (so that the clock's resolution costs at most 10 % at 1 s):
#   host_x_capacity  host data written at the interval's middle, x capacity
#                    (host_pages_written / logical_pages)
#   host_mib_s       host MiB written in the interval / its wall time
#   elapsed_s        the interval's end
# summary, NAME=VALUE: steady_mib_s, host MiB/s over the second half of the
# host data written (from the first sample at or past half of the final
# host_pages_written to the last sample), that span's start and length, and
# steady_waf, nand_pages_written / host_pages_written over the same span.
# With timing=1 the device completes each request when the modeled flash
# would, so wall-clock MiB/s is what a user of the device sees.
NR == 1 {
	for (i = 1; i <= NF; i++)
		col[$i] = i
	if (!("elapsed_s" in col) || !("host_pages_written" in col) ||
	    !("logical_pages" in col)) {
		print "rate.awk: " FILENAME ": missing columns" > "/dev/stderr"
		exit 1
	}
	print "host_x_capacity,host_mib_s,elapsed_s"
	next
}
{
	n++
	t[n] = $col["elapsed_s"] + 0
	h[n] = $col["host_pages_written"] + 0
	if ("nand_pages_written" in col)
		w[n] = $col["nand_pages_written"] + 0
	cap = $col["logical_pages"] + 0
}
END {
	if (n < 2 || cap <= 0 || ps <= 0)
		exit
	mib = ps / 1048576
	a = 1
	for (b = 2; b <= n; b++) {
		if (t[b] - t[a] < min_dt)
			continue	# (a shorter tail is left out)
		printf("%.4f,%.2f,%.1f\n", (h[a] + h[b]) / 2 / cap,
		       (h[b] - h[a]) * mib / (t[b] - t[a]), t[b])
		a = b
	}
	for (s = 1; s < n && h[s] < h[n] / 2; s++)
		;
	if (summary == "")
		exit
	if (t[n] > t[s])
		printf("steady_mib_s=%.1f\n", (h[n] - h[s]) * mib / (t[n] - t[s])) > summary
	else
		print "steady_mib_s=-" > summary
	printf("steady_from_host_mib=%.1f\nsteady_s=%.1f\n", h[s] * mib, t[n] - t[s]) > summary
	# the WAF over the same span: nearer the steady state than the
	# cumulative waf, which still carries the first fill's WAF of 1
	if (("nand_pages_written" in col) && h[n] > h[s])
		printf("steady_waf=%.6f\n", (w[n] - w[s]) / (h[n] - h[s])) > summary
	else
		print "steady_waf=-" > summary
}
