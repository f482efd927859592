# a block whose program failed goes back to the closed blocks, to be erased and reused instead of retired => core
# file: ftl/ftl.c
# changes: 2
/^static bool program_fails/,/^}/s/^\tfailing_insert(ftl, b);$/\tclosed_insert(ftl, b);/
