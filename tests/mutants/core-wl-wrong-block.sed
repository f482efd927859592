# static wear leveling takes a well-worn closed block (the last heap leaf) instead of the least worn => core; ftlsim
# file: ftl/wear.c
# changes: 2
s/^\tcoldest = ftl->worn.slots\[0\];$/\tcoldest = ftl->worn.slots[ftl->worn.nr - 1];/
