# configfs/module parameter validation off by one: max + 1 is accepted => vm 20-errors
# file: module/config.c
# changes: 2
s/(value >= f->min && value <= f->max)/(value >= f->min \&\& value <= f->max + 1)/
