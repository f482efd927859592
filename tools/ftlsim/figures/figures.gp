# ftlsim figures (called by figures.py):
#   gnuplot -e "dir='figures'; sub='...'; trim_op=10" figures.gp
set terminal pngcairo size 900,560 font 'Sans,11' noenhanced
set grid
set key top right box opaque

set output dir.'/waf-op.png'
set title "Write amplification against over-provisioning\n".sub
set xlabel 'over-provisioning (op_percent, % of the logical capacity)'
set ylabel 'write amplification (NAND / host page programs)'
set logscale x
set xtics (5, 7, 10, 15, 20, 30, 50, 70, 100)
set xrange [4.5:105]
set yrange [1:*]
plot dir.'/waf-op-model.dat' using 1:3 with lines lw 2 lc rgb '#444444' \
	title "Desnoyers' model, FIFO (LRW)", \
     dir.'/waf-op.dat' using 1:4 with linespoints pt 7 ps 1.2 lc rgb '#1f77b4' \
	title 'ftlsim fifo', \
     dir.'/waf-op.dat' using 1:3 with linespoints pt 5 ps 1.1 lc rgb '#d62728' \
	title 'ftlsim greedy', \
     dir.'/waf-op.dat' using 1:5 with linespoints pt 9 ps 1.3 lc rgb '#2ca02c' \
	title 'ftlsim cost-benefit'

set output dir.'/waf-trim.png'
unset logscale x
set xtics auto
set xrange [0:0.45]
set title sprintf("Write amplification against the trim fraction, %d%% over-provisioning\n", trim_op).sub
set xlabel 'trim fraction q (requests that discard a valid page instead of writing)'
plot dir.'/waf-trim-model.dat' using 1:2 with lines lw 2 lc rgb '#444444' \
	title 'TRIM model: a / s, s = (1-2q)/(1-q) valid, FIFO', \
     dir.'/waf-trim.dat' using 1:5 with linespoints pt 7 ps 1.2 lc rgb '#1f77b4' \
	title 'ftlsim fifo', \
     dir.'/waf-trim.dat' using 1:4 with linespoints pt 5 ps 1.1 lc rgb '#d62728' \
	title 'ftlsim greedy', \
     dir.'/waf-trim.dat' using 1:6 with linespoints pt 9 ps 1.3 lc rgb '#2ca02c' \
	title 'ftlsim cost-benefit'
