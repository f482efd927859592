# configfs attributes of a powered device can be changed (no EBUSY), the device keeps its old config => vm 20-errors
# file: module/configfs.c
# changes: 2
/^static ssize_t field_store/,/^}/s/^\tif (fi->dev) {$/\tif (0 \&\& fi->dev) {/
