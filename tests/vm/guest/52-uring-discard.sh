#!/bin/sh
# Asynchronous discards through io_uring (BLOCK_URING_CMD_DISCARD, Linux
# 6.12: 50c52250e2d7), with the project's guest tool uring-discard, on
# liburing's io_uring_prep_cmd_discard() (2.8; built in the trixie chroot):
#  - discards interleaved with writes to other ranges in one submission
#    reach the device exactly: the counters see the two requests and their
#    16 pages, those pages read zeroes, every other page keeps its data;
#  - against writes to the same range, io_uring orders nothing by itself:
#    a discard linked after a write (IOSQE_IO_LINK), or drained
#    (IOSQE_IO_DRAIN), always comes after it, and a write linked after a
#    discard always survives it; unlinked, either order may reach the
#    device, and each round's outcome is counted and must be one of the
#    two, with the device's map agreeing with what is read;
#  - 6.1 has no such command: the submission completes with EOPNOTSUPP
#    and the device sees nothing.
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
need_cmd uring-discard md5sum
if kernel_at_least 6.12; then plan 12; else plan 6; fi

cleanup() {
	[ -d "$CFS/ud" ] && rmdir "$CFS/ud"
	rm -f /tmp/ud.ref
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

# psum DEV PAGE [COUNT]: md5 of 4 KiB pages; fsum FILE PAGE [COUNT] likewise.
psum() { dd if="/dev/$1" bs=4096 skip="$2" count="${3:-1}" iflag=direct 2>/dev/null | md5sum; }
fsum() { dd if="$1" bs=4096 skip="$2" count="${3:-1}" 2>/dev/null | md5sum; }
# bytes BYTE: md5 of a 4 KiB page filled with BYTE (decimal).
bytes() { dd if=/dev/zero bs=4096 count=1 2>/dev/null | tr '\000' "\\$(printf %o "$1")" | md5sum; }
zero() { dd if=/dev/zero bs=4096 count="${1:-1}" 2>/dev/null | md5sum; }

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
D=$(mkdev ud size=8 pages_per_block=16)
dd if=/dev/urandom of=/tmp/ud.ref bs=4096 count=64 2>/dev/null
ok "pages 0..63: random data" dd if=/tmp/ud.ref of="/dev/$D" bs=4096 oflag=direct

if ! kernel_at_least 6.12; then
	KEYS="discard_requests pages_discarded"
	snap "$D"
	is "$(uring-discard "/dev/$D" d:8:8 | tr '\n' ' ')" "EOPNOTSUPP " \
		"before 6.12 (no BLOCK_URING_CMD_DISCARD): EOPNOTSUPP"
	is "$(deltas "$D")" "discard_requests=0 pages_discarded=0" "the device saw nothing"
	is "$(psum "$D" 8 8)" "$(fsum /tmp/ud.ref 8 8)" "pages 8..15 unchanged"
	check_dmesg
	done_testing
	exit 0
fi

KEYS="discard_requests pages_discarded"
snap "$D"
is "$(uring-discard "/dev/$D" d:8:8 w:64:1 w:65:2 d:32:8 w:66:3 w:67:4 | tr '\n' ' ')" \
	"ok ok ok ok ok ok " "2 discards and 4 writes to other pages in one submission"
is "$(deltas "$D")" "discard_requests=2 pages_discarded=16" \
	"the device saw 2 discard requests of 16 pages"
is "$(psum "$D" 8 8)$(psum "$D" 32 8)" "$(zero 8)$(zero 8)" "pages 8..15 and 32..39 read zeroes"
is "$(psum "$D" 0 8)$(psum "$D" 16 16)$(psum "$D" 40 24)" \
	"$(fsum /tmp/ud.ref 0 8)$(fsum /tmp/ud.ref 16 16)$(fsum /tmp/ud.ref 40 24)" \
	"every other page of 0..63 unchanged"
is "$(psum "$D" 64)$(psum "$D" 65)$(psum "$D" 66)$(psum "$D" 67)" \
	"$(bytes 1)$(bytes 2)$(bytes 3)$(bytes 4)" "pages 64..67 hold the writes"

# Ordered: a discard linked after a write, 10 times; a write linked after
# a discard; a discard drained after two writes.
good=0
for _ in 1 2 3 4 5 6 7 8 9 10; do
	uring-discard "/dev/$D" w:100:7+link d:100:1 >/dev/null &&
		[ "$(psum "$D" 100)" = "$(zero)" ] && good=$((good + 1))
done
is "$good" 10 "write, then linked discard (IOSQE_IO_LINK): page reads zeroes 10 of 10 times"
is "$(uring-discard "/dev/$D" d:101:1+link w:101:9 | tr '\n' ' ')$(psum "$D" 101)" \
	"ok ok $(bytes 9)" "discard, then linked write: the write survives"
is "$(uring-discard "/dev/$D" w:102:7 w:103:7 d:102:2+drain | tr '\n' ' ')$(psum "$D" 102 2)" \
	"ok ok ok $(zero 2)" "two writes, then a drained discard (IOSQE_IO_DRAIN): zeroes"

# Unlinked: whatever order the device saw; count the outcomes.
zeroed=0 kept=0 odd=0
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	uring-discard "/dev/$D" w:110:5 d:110:1 >/dev/null || odd=$((odd + 1))
	v=$(st "$D" valid_pages)
	case $(psum "$D" 110) in
	"$(zero)") zeroed=$((zeroed + 1)) ;;
	"$(bytes 5)") kept=$((kept + 1)) ;;
	*) odd=$((odd + 1)) ;;
	esac
	# re-map page 110 for the next round's check
	uring-discard "/dev/$D" w:110:5 >/dev/null
	[ "$(st "$D" valid_pages)" -ge "$v" ] || odd=$((odd + 1))
done
is "$odd" 0 "unlinked write + discard, 20 rounds: every outcome one of the two orders (discard last $zeroed, write last $kept)"

check_dmesg
done_testing
