# The demo's table: one row per regime, from the NAME=VALUE files the guest
# wrote after each run (/sys/block/ftlblk0/ftl/* after umount, plus the
# regime's settings and the workload's summary), each followed by the
# regime's FS-MODE.perf (NAME=VALUE, made by demo/run: steady_mib_s from
# demo/rate.awk, write_p99_ns from the ftlblk_complete trace). Only unit
# conversion here: pages are shown in MiB (x page_size); WAF is the device's
# own waf file; latencies in ms.
#   awk -f demo/table.awk FS-MODE.final FS-MODE.perf...
BEGIN { FS = "=" }
FNR == 1 && FILENAME ~ /[.]final$/ { n++ }
{ v[n, $1] = substr($0, length($1) + 2) }

function mib(r, name) { return v[r, name] * v[r, "page_size"] / 1048576 }
function label(r,   m) {
	m = v[r, "regime"]
	sub(/-nodiscard$/, " no discard", m)
	sub(/^f2fs-discard$/, "f2fs default", m)	# F2FS discards by default
	sub(/-discard$/, " -o discard", m)
	sub(/-discard-/, " discard=", m)
	sub(/-fstrim$/, " + fstrim", m)
	return m
}
# "-" without the timing model: RAM speed says nothing about flash
function timed(r, x) { return v[r, "timing"] == 1 && x != "" && x != "-" ? x : "-" }
function ms(ns) { return ns == "" ? "" : sprintf("%.2f", ns / 1e6) }

END {
	printf "ftlblk %s MiB, %s%% over-provisioning (%s spare blocks of %s pages), gc %s;\n",
		v[1, "size_mib"], v[1, "op_percent"], v[1, "spare_blocks"],
		v[1, "pages_per_block"], v[1, "gc_policy"]
	if (v[1, "timing"] == 1)
		printf "timing model on: %s channels x %s dies, tR %s us, tPROG %s us, tBERS %s us, %s MB/s per channel\n",
			v[1, "channels"], v[1, "dies_per_channel"], v[1, "read_us"],
			v[1, "program_us"], v[1, "erase_us"], v[1, "channel_mbps"]
	else
		printf "timing model off (timing=0): RAM speed; steady MiB/s and p99 write latency are only shown with timing=1\n"
	if (v[1, "fill_of"] == "device")
		printf "files kept at %s%% of the device's size", v[1, "fill_percent"]
	else
		printf "filesystem kept %s%% full", v[1, "fill_percent"]
	printf ", %s x capacity of file data written per regime, seed %s",
		v[1, "writes"], v[1, "seed"]
	for (r = 1; r <= n; r++)
		if (v[r, "fstrim_every"] + 0 > 0) {
			printf "; fstrim every %s x capacity", v[r, "fstrim_every"]
			break
		}
	printf "\n\n"
	fmt = "%-19s %8s %8s %6s %10s %7s %9s %5s %9s %10s %6s %6s %5s\n"
	printf fmt, "", "host", "NAND", "", "GC", "", "erase", "free", "discard", "pages", "steady", "p99 wr", "wall"
	printf fmt, "regime", "MiB", "MiB", "WAF", "relocated", "erases", "min/max", "blks", "requests", "discarded", "MiB/s", "ms", "s"
	for (r = 1; r <= n; r++)
		printf fmt, label(r),
			sprintf("%.1f", mib(r, "host_pages_written")),
			sprintf("%.1f", mib(r, "nand_pages_written")),
			v[r, "waf"], v[r, "gc_relocations"], v[r, "erases"],
			v[r, "erase_min"] "/" v[r, "erase_max"], v[r, "free_blocks"],
			v[r, "discard_requests"], v[r, "pages_discarded"],
			timed(r, v[r, "steady_mib_s"]), timed(r, ms(v[r, "write_p99_ns"])),
			v[r, "wall_s"]
	printf "\n"
	# Same seed, same filesystem: the file operations must be identical.
	for (r = 1; r <= n; r++) {
		fsn = v[r, "fs"]
		if (!(fsn in sum)) {
			sum[fsn] = v[r, "ops_checksum"]
			created[fsn] = v[r, "files_created"]
			order[++nf] = fsn
		} else if (sum[fsn] != v[r, "ops_checksum"])
			bad[fsn] = 1
	}
	for (r = 1; r <= n; r++)
		if (v[r, "passes"] != "")
			printf "%s: steady state (STEADY=1) after %s passes, WAF per pass %s%s\n",
				v[r, "regime"], v[r, "passes"], v[r, "pass_wafs"],
				(v[r, "steady_reached"] == 1 ? "" : " (NOT STEADY: the WRITES limit)")
	for (i = 1; i <= nf; i++) {
		fsn = order[i]
		if (bad[fsn] && v[1, "passes"] != "")
			printf "%s: the regimes ran the same file operations, each cut short at its steady pass\n", fsn
		else if (bad[fsn])
			printf "%s: WARNING: the regimes ran different file operations (ops checksums differ)\n", fsn
		else
			printf "%s: every regime ran the same %s file creates and their deletes (ops checksum %s)\n",
				fsn, created[fsn], sum[fsn]
	}
	printf "host/NAND MiB = host_pages_written/nand_pages_written x %s B pages; all columns up to pages discarded are the device's statistics after umount\n",
		v[1, "page_size"]
	if (v[1, "timing"] != 1)
		exit
	print "steady MiB/s = host MiB written / guest wall time over the second half of each regime's host writes"
	printf "p99 wr ms = 99th percentile (nearest rank) of the modeled latency (ftlblk:ftlblk_complete) of all its writes:"
	for (r = 1; r <= n; r++) {
		printf("%s %s", (r > 1 ? "," : ""), v[r, "write_completions"])
		if (v[r, "traced_requests"] + 0 != v[r, "requests_timed"] - v[r, "requests_timed_before_trace"])
			warn = warn sprintf("%s: WARNING: %s requests traced, %s timed: events lost\n",
				v[r, "regime"], v[r, "traced_requests"],
				v[r, "requests_timed"] - v[r, "requests_timed_before_trace"])
	}
	printf(" write requests\n%s", warn)
}
