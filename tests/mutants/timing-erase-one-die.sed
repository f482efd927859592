# an erase occupies only the first die of its block => core; ftlsim
# file: ftl/timing.c
# changes: 2
s/for (d = 0; d < dies; d++) {/for (d = 0; d < 1; d++) {/
