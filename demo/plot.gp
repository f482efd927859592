# The demo's plot (called by demo/run):
#   gnuplot -e "csvs='A.csv B.csv ...'; out='demo.png'; subtitle='...'" demo/plot.gp
# Each CSV holds the device's statistics sampled during one regime
# (demo-workload). Top: the device's cumulative WAF (its waf file); bottom:
# the data the FTL holds as valid (valid_pages), both against the host's
# writes (host_pages_written). Pages are shown in MiB: x page size.
if (!exists("subtitle")) subtitle = ''
set datafile separator ','
set datafile columnheaders
set terminal pngcairo size 1000,900 font 'Sans,11' noenhanced
set output out

# page size: the guest stores it next to each CSV in REGIME.final
ps = 4096
mib(p) = p * ps / 1048576.0
name(f) = system(sprintf("basename '%s' .csv", f))
pretty(s) = system(sprintf("printf '%%s' '%s' | sed 's/-nodiscard$/, no discard/; s/-discard$/, mount -o discard/; s/-fstrim$/, no discard + periodic fstrim/'", s))
n = words(csvs)
array cap[n]
do for [i=1:n] {
	stats word(csvs, i) using (column("logical_pages")) nooutput
	cap[i] = STATS_max
}

set multiplot layout 2,1 title "What discard does for a flash device\n".subtitle
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
unset multiplot
