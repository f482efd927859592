#!/bin/sh
# Seed conformance, "[FAT] Let the block device know when sectors can be
# discarded": vfat mounted -o discard on ftlblk. The sectors the
# ftlblk_discard tracepoint shows after deleting fragmented files are
# exactly their clusters (read from the volume's own FAT by fatmap, never
# from the kernel), and never a cluster still in use; truncate discards
# exactly the freed tail; fstrim discards exactly the free clusters, and
# again on a second call (FAT keeps no trimmed state). The device must have
# unmapped exactly the flash pages those clusters freed, computed from the
# FAT alone: valid_pages and data_bytes drop by exactly that many pages,
# valid_pages_discarded counts the ones a range covered whole (a driver
# that zeroes discarded pages but keeps them mapped fails). See
# docs/conformance.md.
# shellcheck source=lib.sh
. /tests/lib.sh
# shellcheck source=conform-lib.sh
. /tests/conform-lib.sh
need_module ftlblk
need_cmd fatmap mkfs.vfat fsck.fat fstrim

plan 35

MNT=/mnt/c73
# map_of NAME...: merged ranges of those files in /tmp/map (fatmap output)
map_of() {
	for _f; do
		awk -v f="$_f" '$1 == "file" && $2 == f { print $3, $4 }' /tmp/map
	done | ranges_merge
}
traced() { trace_ranges "$D" | ranges_merge; }

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
cdev_ok "device fat: 64 MiB" fat size=64
D=$CDEV
ok "mkfs.vfat /dev/$D" mkfs.vfat "/dev/$D"
mkdir -p $MNT
# iocharset: the guest has nls_utf8, not the default nls_ascii
ok "mount -o discard" mount -t vfat -o discard,iocharset=utf8 "/dev/$D" $MNT
# mkfs.vfat programmed the page where the (empty, zero) root directory
# meets cluster 2, which stays free (Linux's FAT allocates from cluster 3):
# a first fstrim unmaps it (measured: valid_pages 37 -> 36), so from here
# on the device holds data exactly where the FAT has clusters in use (or
# metadata), and what each step unmaps follows from the FAT alone.
vp=$(cstat "$D" valid_pages)
ok "fstrim the fresh volume" fstrim $MNT
diag "fresh volume: valid_pages $vp -> $(cstat "$D" valid_pages) after the first fstrim"

# Fragmented files: 4 files appended to in turn, 1..3 clusters at a time.
r=0
while [ $r -lt 6 ]; do
	for f in A B C D; do
		n=$(( (r + $(printf '%d' "'$f")) % 3 + 1 ))
		head -c $((n * 2048 - 100)) /dev/urandom >>$MNT/$f.BIN
	done
	r=$((r + 1))
done
sync
fatmap "/dev/$D" >/tmp/map
diag "$(head -n 1 /tmp/map)"
spc=$(sed -n 's/^geometry.* sectors_per_cluster=\([0-9]*\).*/\1/p' /tmp/map)
is "$(awk '$1 == "file" { n[$2]++ } END { for (f in n) if (n[f] >= 4) print f }' /tmp/map | sort | tr '\n' ' ')" \
	"A.BIN B.BIN C.BIN D.BIN " "fatmap finds the 4 files, each in at least 4 runs of clusters"
map_of A.BIN C.BIN >/tmp/want
map_of B.BIN D.BIN >/tmp/kept
sum_d=$(md5sum <$MNT/D.BIN)
sum_b=$(head -c 3000 $MNT/B.BIN | md5sum)

# The discard ranges FAT issues for the files: one per run of consecutive
# clusters of a chain (fat_free_clusters batches them).
awk '$1 == "file" && ($2 == "A.BIN" || $2 == "C.BIN") { print $3, $4 }' /tmp/map >/tmp/delruns

# --- rm: the deleted files' clusters, nothing else ----------------------------
st0=$(unmap_state "$D")
echo 1 >"/sys/block/$D/ftl/reset_stats"
trace_start
ok "rm A.BIN C.BIN" rm $MNT/A.BIN $MNT/C.BIN
sync
traced >/tmp/got
[ -s /tmp/want ] || fail "A.BIN and C.BIN have clusters"
is "$(cat /tmp/got)" "$(cat /tmp/want)" "rm: discarded sectors = clusters of A.BIN and C.BIN ($(wc -l </tmp/want) runs)"
fatmap "/dev/$D" >/tmp/map
awk '$1 == "free" { print $2, $3 }' /tmp/map | ranges_merge >/tmp/free
is "$(ranges_outside /tmp/got /tmp/free)" "" "rm: every discarded sector is in a free cluster afterwards" ||
	sed 's/^/# /' /tmp/map
is "$(ranges_overlap /tmp/got /tmp/kept)" "" "rm: no sector of B.BIN or D.BIN was discarded"
is "$(map_of B.BIN D.BIN)" "$(cat /tmp/kept)" "rm: B.BIN and D.BIN kept their clusters"
is "$(cstat "$D" discard_sectors)" "$(awk '{ n += $2 - $1 } END { print n + 0 }' /tmp/want)" \
	"rm: ftlblk counted exactly as many sectors as the two files had"
is "$(cstat "$D" pages_discarded)" "$(trace_ranges "$D" | pages_covered)" \
	"rm: pages_discarded counts the flash pages the traced ranges cover whole"
is "$(ranges_nonzero "/dev/$D" /tmp/got)" 0 "rm: the discarded sectors read back as zeroes"
unmap_expect "$D" /tmp/delruns /tmp/free >/tmp/ue
read -r n full </tmp/ue
is "$(unmap_delta "$st0" "$(unmap_state "$D")") $(cstat "$D" valid_pages_discarded)" "$n $n $full" \
	"rm: ftlblk unmapped exactly the $n pages the clusters of A.BIN and C.BIN freed (valid_pages, data_bytes), $full covered whole"

# --- truncate: the freed tail clusters ---------------------------------------
map_of B.BIN >/tmp/b0
st0=$(unmap_state "$D")
echo 1 >"/sys/block/$D/ftl/reset_stats"
trace_start
ok "truncate -s 3000 B.BIN" truncate -s 3000 $MNT/B.BIN
sync
traced >/tmp/got
fatmap "/dev/$D" >/tmp/map
map_of B.BIN >/tmp/b1
is "$(awk '{ n += $2 - $1 } END { print n }' /tmp/b1)" $((2 * spc)) "truncate: B.BIN keeps 2 clusters for 3000 bytes"
is "$(cat /tmp/got)" "$(ranges_sub /tmp/b0 /tmp/b1)" "truncate: discarded sectors = the freed tail clusters of B.BIN"
is "$(ranges_overlap /tmp/got /tmp/b1)" "" "truncate: the clusters B.BIN keeps were not discarded"
ranges_sub /tmp/b0 /tmp/b1 | awk '{ print $1, $2 - $1 }' >/tmp/delruns
awk '$1 == "free" { print $2, $3 }' /tmp/map | ranges_merge >/tmp/free
unmap_expect "$D" /tmp/delruns /tmp/free >/tmp/ue
read -r n full </tmp/ue
is "$(unmap_delta "$st0" "$(unmap_state "$D")") $(cstat "$D" valid_pages_discarded)" "$n $n $full" \
	"truncate: ftlblk unmapped exactly the $n pages the freed clusters held (valid_pages, data_bytes), $full covered whole"

# --- fstrim: exactly the free clusters, twice ---------------------------------
# FAT's FITRIM raises minlen to the device's discard_granularity (4 KiB):
# free runs shorter than that many clusters are skipped.
gran=$(sysfs_read /sys/block/$D/queue/discard_granularity)
minclus=$((gran / (spc * 512)))
awk -v m="$minclus" -v spc="$spc" '$1 == "free" && $3 / spc >= m { print $2, $3 }' /tmp/map |
	ranges_merge >/tmp/free
short=$(awk -v m="$minclus" -v spc="$spc" '$1 == "free" && $3 / spc < m' /tmp/map | wc -l)
ok "the volume has free runs shorter than the discard granularity ($short)" test "$short" -ge 1
st0=$(unmap_state "$D")
echo 1 >"/sys/block/$D/ftl/reset_stats"
trace_start
ok "fstrim" fstrim -v $MNT
traced >/tmp/got
is "$(cat /tmp/got)" "$(cat /tmp/free)" "fstrim: discarded sectors = the free runs of >= $minclus clusters ($(wc -l </tmp/free) runs)"
awk '$1 == "used" { print $2, $3 }' /tmp/map | ranges_merge >/tmp/used
is "$(ranges_overlap /tmp/got /tmp/used)" "" "fstrim: no cluster in use was discarded"
is "$(unmap_delta "$st0" "$(unmap_state "$D")") $(cstat "$D" valid_pages_discarded)" "0 0 0" \
	"fstrim: nothing unmapped (the freed clusters were unmapped when freed; the rest never held data)"
trace_start
out=$(fstrim -v $MNT 2>&1)
traced >/tmp/got2
diag "second fstrim: $out"
is "$(cat /tmp/got2)" "$(cat /tmp/free)" "fstrim again: FAT keeps no trimmed state, it resends exactly the same free runs"
is "$(ranges_outside /tmp/got2 /tmp/free)" "" "fstrim again: nothing outside free space"

# --- data and consistency -------------------------------------------------------
ok "umount" umount $MNT
ok "fsck.fat -n: the volume is consistent" fsck.fat -n "/dev/$D"
ok "mount again" mount -t vfat -o iocharset=utf8 "/dev/$D" $MNT
is "$(md5sum <$MNT/B.BIN) $(md5sum <$MNT/D.BIN)" "$sum_b $sum_d" \
	"B.BIN (its first 3000 bytes) and D.BIN read back unchanged"
ok "umount" umount $MNT

trace_stop
ok "remove device fat" cdev_remove fat
ok "rmmod ftlblk" modprobe -r ftlblk
check_dmesg
done_testing
