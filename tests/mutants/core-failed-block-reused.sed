# a block whose program failed goes back to the closed blocks, to be erased and reused instead of retired => core
# file: ftl/blocks.c
# changes: 2
/^bool ftl_program_fault/,/^}/s/^\tftl_failing_insert(ftl, b);$/\tftl_closed_insert(ftl, b);/
