#!/bin/bash
# Seed conformance, the ATA path ("a fix to the generic ATA driver ... to
# make discard requests work with flash devices using built-in translation
# layers"): a file deleted on vfat -o discard in the guest, on a SATA disk
# (QEMU AHCI, discard=unmap, backed by a sparse raw image), becomes holes
# in the image on the host. Guest: sd -> libata's SCSI-ATA translation ->
# ATA DATA SET MANAGEMENT (TRIM); QEMU -> fallocate(PUNCH_HOLE).
#   boot 1: mkfs.vfat, mount -o discard, write 64 MiB, umount
#           host: the image's allocated blocks grew by ~64 MiB
#   boot 2: mount -o discard, rm, sync, umount
#           host: the allocated blocks dropped by >= 90% of 64 MiB
# Prints TAP and "N passed, N failed"; exits non-zero on failure.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/ata-trim.XXXXXX")
trap 'rm -rf "$work"' EXIT
img=$work/disk.raw
file_mib=64
# shellcheck source-path=SCRIPTDIR source=../lib/host-tap.sh
. "$top/tests/vm/lib/host-tap.sh"

alloc_kib() { du -k "$img" | cut -f1; }
value() { sed -n "s/^ata: $1=//p" "$2" | tail -n 1; }

cat >"$work/boot1.sh" <<EOF
#!/bin/sh
set -u
d=/sys/block/sda
echo "ata: discard_max_bytes=\$(cat \$d/queue/discard_max_bytes)"
echo "ata: discard_granularity=\$(cat \$d/queue/discard_granularity)"
echo "ata: physical_block_size=\$(cat \$d/queue/physical_block_size)"
echo "ata: provisioning_mode=\$(cat \$d/device/scsi_disk/*/provisioning_mode)"
echo "ata: model=\$(cat \$d/device/model)"
mkfs.vfat /dev/sda >/dev/null || exit 1
mkdir -p /mnt/ata
mount -t vfat -o discard,iocharset=utf8 /dev/sda /mnt/ata || exit 1
dd if=/dev/urandom of=/mnt/ata/BIG.BIN bs=1M count=$file_mib 2>/dev/null || exit 1
sync
echo "ata: written=\$(stat -c %s /mnt/ata/BIG.BIN)"
umount /mnt/ata || exit 1
echo "ata: boot1=done"
EOF
cat >"$work/boot2.sh" <<'EOF'
#!/bin/sh
set -u
mkdir -p /mnt/ata
mount -t vfat -o discard,iocharset=utf8 /dev/sda /mnt/ata || exit 1
ls -l /mnt/ata
rm /mnt/ata/BIG.BIN || exit 1
sync
umount /mnt/ata || exit 1
echo "ata: boot2=done"
EOF

truncate -s 256M "$img"
a0=$(alloc_kib)
"$top/tests/vm/run" --timeout 300 --disk "$img" --script "$work/boot1.sh" >"$work/boot1.log" 2>&1
st1=$?
a1=$(alloc_kib)
tap $st1 "boot 1 (mkfs.vfat, mount -o discard, write ${file_mib} MiB) ran cleanly" "$(tail -n 30 "$work/boot1.log")"
dmb=$(value discard_max_bytes "$work/boot1.log")
echo "# guest: sda discard_max_bytes=$dmb discard_granularity=$(value discard_granularity "$work/boot1.log") provisioning_mode=$(value provisioning_mode "$work/boot1.log") model=$(value model "$work/boot1.log")"
[ "${dmb:-0}" -gt 0 ] 2>/dev/null
tap $? "the AHCI disk offers discard (discard_max_bytes=${dmb:-?} > 0)"
gran=$(value discard_granularity "$work/boot1.log") pbs=$(value physical_block_size "$work/boot1.log")
tap "$([ "$gran" = 512 ] && [ "$pbs" = 512 ] && echo 0 || echo 1)" \
	"its discard_granularity is 512, its physical block (got $gran, $pbs), on every kernel"
tap "$([ "$(value written "$work/boot1.log")" = $((file_mib << 20)) ] && echo 0 || echo 1)" \
	"the guest wrote a ${file_mib} MiB file"
echo "# image allocated: ${a0} KiB before, ${a1} KiB after boot 1"
grown=$((a1 - a0))
[ "$grown" -ge $((file_mib * 1024 * 95 / 100)) ]
tap $? "the image grew by ~${file_mib} MiB (${grown} KiB)"

"$top/tests/vm/run" --timeout 300 --disk "$img" --script "$work/boot2.sh" >"$work/boot2.log" 2>&1
st2=$?
a2=$(alloc_kib)
tap $st2 "boot 2 (mount -o discard, rm, sync, umount) ran cleanly" "$(tail -n 30 "$work/boot2.log")"
echo "# image allocated: ${a2} KiB after boot 2"
dropped=$((a1 - a2))
[ "$dropped" -ge $((file_mib * 1024 * 90 / 100)) ]
tap $? "deleting the file punched >= 90% of it out of the image (${dropped} KiB of $((file_mib * 1024)))"

echo "1..$n"
tap_summary
