# make forensic's plot (called by demo/forensic):
#   gnuplot -e "tsv='forensic.tsv'; out='forensic.png'; regimes='A B ...'" demo/forensic.gp
# One line per regime: KiB of deleted files' data readable in the raw flash
# image after each step (column 3), in the order the guest measured them.
set terminal pngcairo size 1000,600 font 'Sans,11' noenhanced
set output out
set datafile separator "\t"
set title "Deleted data still readable in the flash (remanence=1)"
set ylabel "KiB of deleted files in the raw flash image"
set xlabel "step"
set key outside right top
set grid ytics
set yrange [0:*]
n = words(regimes)
plot for [i=1:n] sprintf("< awk -F'\t' -v r='%s' '$1 == r' '%s'", word(regimes, i), tsv) \
	using 0:($3 / 1024):xtic(2) with linespoints lw 2 title word(regimes, i)
