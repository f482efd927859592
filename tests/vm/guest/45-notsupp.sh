#!/bin/sh
# Operations ftlblk does not serve. queue_rq completes any request that is
# not READ, WRITE, FLUSH, DISCARD or WRITE_ZEROES with BLK_STS_NOTSUPP, but
# on 6.1 the block layer stops every such operation user space can ask for
# before it becomes a request, because ftlblk's queue limits say so:
#   BLKSECDISCARD            max_secure_erase_sectors 0  -> EOPNOTSUPP
#   BLK{RESET,OPEN,CLOSE,FINISH}ZONE, BLKREPORTZONE   not zoned -> ENOTTY
#   SG_IO (passthrough)      no ioctl method in ftlblk     -> ENOTTY
#   fallocate COLLAPSE/INSERT_RANGE  not a block-device mode -> EOPNOTSUPP
# So this checks those errors, and that nothing reached the device: its
# counters, the block layer's I/O statistics and its data are unchanged.
# What only kernel code can send, a driver-private passthrough request
# (REQ_OP_DRV_IN/OUT), does reach queue_rq: ftlblk_conform test=drv sends
# one of each and checks that ftlblk ends them with BLK_STS_NOTSUPP.
# shellcheck source=lib.sh
. /tests/lib.sh
# shellcheck source=conform-lib.sh
. /tests/conform-lib.sh
need_module ftlblk ftlblk_conform
need_cmd blkop blkioctl
plan 21

cleanup() {
	[ -d "$CFS/ns" ] && rmdir "$CFS/ns"
	rm -f /tmp/ns.ref
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT
COUNTERS="host_pages_written host_pages_read nand_pages_written
discard_requests pages_discarded sectors_zeroed write_zeroes_requests
flush_requests valid_pages"
vals() {
	_o=
	for _k in $COUNTERS; do _o="$_o $_k=$(st "$1" "$_k")"; done
	echo "${_o# }"
}

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
# A volatile write cache, so that flushes would reach the device too.
N=$(mkdev ns size=16 pages_per_block=64 write_cache=1)
ok "device $N filled with random data" sh -c \
	"test -b /dev/$N && dd if=/dev/urandom of=/tmp/ns.ref bs=1M count=16 2>/dev/null &&
	 dd if=/tmp/ns.ref of=/dev/$N bs=1M oflag=direct 2>/dev/null"
is "$(sysfs_read /sys/block/"$N"/queue/zoned)" none "$N is not zoned"
before=$(vals "$N")
stat0=$(sysfs_read /sys/block/"$N"/stat)

is "$(blkop secdiscard /dev/"$N" 0 1048576)" EOPNOTSUPP "BLKSECDISCARD: EOPNOTSUPP"
for z in resetzone openzone closezone finishzone reportzone; do
	is "$(blkioctl $z /dev/"$N")" ENOTTY "$z ioctl: ENOTTY"
done
is "$(blkioctl sgio /dev/"$N")" ENOTTY "SG_IO: ENOTTY"
is "$(blkioctl collapse /dev/"$N")" EOPNOTSUPP "fallocate COLLAPSE_RANGE: EOPNOTSUPP"
is "$(blkioctl insert /dev/"$N")" EOPNOTSUPP "fallocate INSERT_RANGE: EOPNOTSUPP"

is "$(vals "$N")" "$before" "no request reached $N: its counters are unchanged"
is "$(sysfs_read /sys/block/"$N"/stat)" "$stat0" "the block layer counted no I/O either"
ok "$N's data is unchanged" cmp /dev/"$N" /tmp/ns.ref

# Two points from the module: REQ_OP_DRV_IN and REQ_OP_DRV_OUT.
before=$(vals "$N")
conform dev=/dev/"$N" test=drv
is "$(vals "$N")" "$before" "the passthrough requests changed no counter of $N"
ok "$N's data is still unchanged" cmp /dev/"$N" /tmp/ns.ref

rmdir "$CFS/ns"
rm -f /tmp/ns.ref
ok "modprobe -r ftlblk" modprobe -r ftlblk
check_dmesg
done_testing
