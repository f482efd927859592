# The demo's plot (called by demo/run):
#   gnuplot -e "csvs='A.csv B.csv ...'; out='demo.png'; timing=1; subtitle='...'" demo/plot.gp
# Each CSV holds the device's statistics sampled during one regime
# (demo-workload); next to it A.rate.csv, the host's write throughput per
# interval of at least 1 s (demo/rate.awk). Top: the device's cumulative
# WAF (its waf file); middle: the data the FTL holds as valid (valid_pages),
# both against the host's writes (host_pages_written; pages are shown in
# MiB: x page size); bottom: host MiB/s over the guest's wall clock against
# the host data written in multiples of the capacity. With timing=0 (RAM
# speed) that would be the speed of the guest's CPU, not the device's: the
# bottom panel is left out and the title says so.
if (!exists("subtitle")) subtitle = ''
if (!exists("timing")) timing = 1
set datafile separator ','
set datafile columnheaders
if (timing == 1) {
	set terminal pngcairo size 1000,1300 font 'Sans,11' noenhanced
} else {
	set terminal pngcairo size 1000,900 font 'Sans,11' noenhanced
}
set output out

# page size: the guest stores it next to each CSV in REGIME.final
ps = 4096
mib(p) = p * ps / 1048576.0
name(f) = system(sprintf("basename '%s' .csv", f))
rate(f) = f[1:strlen(f) - 4].'.rate.csv'
pretty(s) = system(sprintf("printf '%%s' '%s' | sed 's/-nodiscard$/, no discard/; s/^f2fs-discard$/f2fs, default mount (discards)/; s/-discard$/, mount -o discard/; s/-discard-\\(sync\\|async\\)$/, mount -o discard=\\1/; s/-fstrim$/, no discard + periodic fstrim/'", s))
n = words(csvs)
array cap[n]
do for [i=1:n] {
	stats word(csvs, i) using (column("logical_pages")) nooutput
	cap[i] = STATS_max
}

if (timing == 1) {
	set multiplot layout 3,1 title "What discard does for a flash device\n".subtitle
} else {
	set multiplot layout 2,1 title "What discard does for a flash device\n".subtitle. \
		"\ntiming=0 (RAM speed): no throughput panel, the host's MiB/s would be the guest CPU's (TIMING=1 for it)"
}
set grid
set key top left box opaque
set xlabel 'host writes (MiB, host_pages_written)'
set ylabel 'write amplification factor (device waf, cumulative)'
set title 'Write amplification: flash pages programmed / pages the host wrote'
set yrange [0.9:*]
plot for [i=1:n] word(csvs, i) \
	using (mib(column("host_pages_written"))):(column("host_pages_written") > 0 ? column("waf") : NaN) \
	with lines lw 2 lc i title pretty(name(word(csvs, i)))

set ylabel 'valid data in the FTL (MiB, valid_pages)'
set title 'Data the device must preserve (and copy during GC)'
set yrange [0:mib(cap[1]) * 1.1]
set key bottom right
plot mib(cap[1]) with lines dt 2 lw 2 lc rgb 'gray40' title 'device capacity (logical_pages)', \
	for [i=1:n] word(csvs, i) \
	using (mib(column("host_pages_written"))):(mib(column("valid_pages"))) \
	with lines lw 2 lc i title pretty(name(word(csvs, i)))

if (timing == 1) {
	set xlabel 'host writes (x device capacity, host_pages_written / logical_pages)'
	set ylabel 'host writes, MiB/s (guest wall clock, >= 1 s intervals)'
	set title 'Write throughput the host sees: requests complete when the modeled flash would (timing=1)'
	set xrange [0:*]
	set yrange [0:*]
	set key bottom right
	set arrow 1 from 1, graph 0 to 1, graph 1 nohead dt 3 lc rgb 'gray40'
	set label 1 'capacity written once' at 1, graph 0.05 offset 0.5, 0 left tc rgb 'gray40'
	plot for [i=1:n] rate(word(csvs, i)) \
		using (column("host_x_capacity")):(column("host_mib_s")) \
		with linespoints lw 2 pt 7 ps 0.4 lc i title pretty(name(word(csvs, i)))
}
unset multiplot
