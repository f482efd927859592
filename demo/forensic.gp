# make forensic's plot (called by demo/forensic):
#   gnuplot -e "tsv='forensic.tsv'; out='forensic.png'; regimes='A B ...'" demo/forensic.gp
# Per regime, after each step (in the order the guest measured them): the
# KiB of deleted files' data readable in the raw flash image (column 3,
# solid), and of those the KiB the device still maps because the
# filesystem never discarded them (column 4, dashed); the difference is
# stale: unmapped, not yet erased.
set terminal pngcairo size 1000,650 font 'Sans,11' noenhanced
set output out
set datafile separator "\t"
set title "Deleted files' data still readable in the flash (remanence=1)"
set ylabel "KiB of deleted files in the raw flash image"
set key outside right top
set grid ytics
set yrange [0:*]
set xtics rotate by -35
set bmargin 6
n = words(regimes)
sel(i) = sprintf("< awk -F'\t' -v r='%s' '$1 == r' '%s'", word(regimes, i), tsv)
plot for [i=1:n] sel(i) using 0:($3 / 1024):xtic(2) with linespoints lw 2 lc i \
	title word(regimes, i).": in flash", \
     for [i=1:n] sel(i) using 0:($4 / 1024) with lines dt 2 lw 1.5 lc i \
	title word(regimes, i).": still mapped"
