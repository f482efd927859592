#!/bin/sh
# The forensic study's guest side (demo/forensic runs it in the VM): how
# much of the data of deleted files stays readable in the raw flash image
# (/sys/kernel/debug/ftlblk/ftlblkN/flash, remanence=1) on ext4 and vfat,
# with and without -o discard, as the host goes on.
#
# Per regime (FS-nodiscard, FS-discard), on a fresh device:
#   1. KEEP files and DEL files are written, alternately, each 4 KiB block
#      starting with "DELETED-" or "KEPT----" (so a page of the image tells
#      whose it was), and synced;
#   2. the DEL files are deleted and the filesystem synced: "deleted";
#   3. new files (random data) are written and deleted in rounds of 25 %
#      of the device: "churn1" .. "churnN" (garbage collection erases
#      blocks as the device fills);
#   4. fstrim: "fstrim"; then one more churn round: "after GC";
#   5. umount, blkdiscard -s of the whole device: "secure erase".
# After each step: the pages of deleted files in the image, split by the
# map's state (valid: the filesystem never told the device; stale: unmapped
# but not erased), and the kept files' pages (they must all be valid).
# Output (/out/forensic.tsv): regime step deleted_bytes valid_bytes
# stale_bytes kept_bytes erases discarded_pages.
# env: SIZE (MiB, 64), CHURN (rounds, 4), FILES (per kind, 64), FILE_KIB (64)
set -u
SIZE=${SIZE:-64} CHURN=${CHURN:-4} FILES=${FILES:-64} FILE_KIB=${FILE_KIB:-64}
REGIMES=${REGIMES:-ext4-nodiscard ext4-discard vfat-nodiscard vfat-discard}
MNT=/mnt/forensic
CFS=/sys/kernel/config/ftlblk
OUT=/out/forensic.tsv
mkdir -p "$MNT" /out

die() { echo "forensic: $*"; exit 1; }

# marked_file PATH WORD: FILE_KIB KiB, each 4 KiB block starting with WORD.
marked_file() {
	awk -v w="$2" -v n=$((FILE_KIB / 4)) 'BEGIN {
		s = w; while (length(s) < 4096) s = s "." w
		s = substr(s, 1, 4096)
		for (i = 0; i < n; i++) printf "%s", s }' >"$1"
}

# measure REGIME STEP: one line of OUT.
measure() {
	f=/sys/kernel/debug/ftlblk/$D/flash
	pagegrep "$f" 4096 DELETED- >/tmp/del.pages
	pagegrep "$f" 4096 KEPT---- >/tmp/keep.pages
	# the map's state of each page (runs expanded)
	awk 'NR == FNR { want[$1] = 1; next }
		{ for (p = $1; p < $1 + $2; p++) if (p in want) n[$3]++ }
		END { printf "%d %d", n["valid"] + 0, n["stale"] + 0 }' \
		/tmp/del.pages "/sys/kernel/debug/ftlblk/$D/flash_map" >/tmp/del.states
	read -r valid stale </tmp/del.states
	printf '%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\n' "$1" "$2" \
		$(($(wc -l </tmp/del.pages) * 4096)) $((valid * 4096)) \
		$((stale * 4096)) $(($(wc -l </tmp/keep.pages) * 4096)) \
		"$(cat "/sys/block/$D/ftl/erases")" \
		"$(cat "/sys/block/$D/ftl/pages_discarded")" >>"$OUT"
	echo "forensic: $1 $2: deleted data in flash $(($(wc -l </tmp/del.pages) * 4)) KiB (valid $((valid * 4)), stale $((stale * 4)))"
}

churn() {
	i=0
	while [ $i -lt $((SIZE / 4)) ]; do
		dd if=/dev/urandom of="$MNT/churn.$i" bs=1M count=1 2>/dev/null || break
		i=$((i + 1))
	done
	sync
	rm -f "$MNT"/churn.*
	sync
}

printf 'regime\tstep\tdeleted_bytes\tvalid_bytes\tstale_bytes\tkept_bytes\terases\tpages_discarded\n' >"$OUT"
modprobe ftlblk nr_devices=0 || die "modprobe"
for r in $REGIMES; do
	fs=${r%%-*}
	mkdir "$CFS/$r" || die "mkdir $r"
	for kv in size=$SIZE pages_per_block=64 remanence=1 secure_erase=1; do
		echo "${kv#*=}" >"$CFS/$r/${kv%%=*}" || die "$r: $kv"
	done
	echo 1 >"$CFS/$r/power" || die "$r: power"
	D=ftlblk$(cat "$CFS/$r/index")
	case $fs in
	ext4) mkfs.ext4 -q -F -b 4096 -E nodiscard "/dev/$D" >/dev/null 2>&1 ;;
	vfat) mkfs.vfat -s 8 "/dev/$D" >/dev/null 2>&1 ;;
	esac || die "$r: mkfs"
	opt=
	case $r in *-discard) opt=discard ;; esac
	mount -t "$fs" ${opt:+-o "$opt"} "/dev/$D" "$MNT" || die "$r: mount"
	n=0
	while [ $n -lt "$FILES" ]; do
		marked_file "$MNT/keep.$n" KEPT----
		marked_file "$MNT/del.$n" DELETED-
		n=$((n + 1))
	done
	sync
	measure "$r" written
	rm -f "$MNT"/del.*
	sync
	measure "$r" deleted
	c=1
	while [ $c -le "$CHURN" ]; do
		churn
		measure "$r" "churn$c"
		c=$((c + 1))
	done
	fstrim "$MNT" 2>/dev/null || true
	measure "$r" fstrim
	churn
	measure "$r" "after-GC"
	umount "$MNT" || die "$r: umount"
	blkdiscard -f -s "/dev/$D" || die "$r: blkdiscard -s"
	measure "$r" secure-erase
	rmdir "$CFS/$r"
done
modprobe -r ftlblk
echo "forensic: done"
