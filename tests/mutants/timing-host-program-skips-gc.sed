# a host program does not wait for the GC its request ran => core; ftlsim
# file: ftl/timing.c
# changes: 2
s/nand_program(t, ppn, r->gc_done)/nand_program(t, ppn, r->arrival)/
