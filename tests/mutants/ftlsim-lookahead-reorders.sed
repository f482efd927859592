# the lookahead ring hands out the page after the head, not the head: the workload writes other pages than its seed draws => ftlsim
# file: tools/ftlsim/workload.c
# changes: 2
s/^\tlpn = s->ahead\[s->ahead_pos\];$/\tlpn = s->ahead[(s->ahead_pos + 1) \& mask];/
