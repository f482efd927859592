# the spare-block check counts two open blocks whatever the classes => core
# file: ftl/ftl.c
# changes: 2
s/	g.open_blocks = 2 \* (cfg->placement_classes ? cfg->placement_classes : 1);/	g.open_blocks = 2;/
