# shellcheck shell=bash
# A Debian 12 (bookworm) root filesystem for the test VM (tests/vm/run
# --rootfs debian): a real Debian userland with udev, for the kernel
# community's own suites (blktests, xfstests) and for tests that need more
# than the busybox initramfs.
#
#   rootfs_build KVER KROOT CACHE   -> sets ROOTFS_IMAGE: a raw ext4 image,
#       built once with mmdebstrap from the Debian mirror apt on this host
#       uses, plus the kernel's whole module tree (KROOT/lib/modules/KVER);
#       cached as CACHE/rootfs/bookworm-KVER-KEY/rootfs.raw, KEY a hash of
#       the package list, the mirror and the build code, so a change to any
#       of them builds a new image. QEMU opens it with snapshot=on: a run's
#       writes go to a temporary overlay, the cached image never changes.
#   rootfs_stage ROOT KVER KROOT MODULES_DIR
#       turns the per-run initramfs tree ROOT (/init, /tests, /etc/vm; the
#       project's modules and guest tools follow from run_build) into stage
#       1 of a Debian boot: its /init mounts the Debian image, copies the
#       per-run files and the project's modules into it, with module indexes
#       depmod made here on the host (under TCG depmod over the whole tree
#       takes half a minute), and switch_root's to the ordinary runner,
#       tests/vm/init, as PID 1 of the Debian root.
#
# Guest side (see tests/vm/README.md): the same /init, protocol and channels
# as the busybox initramfs; /etc/vm/rootfs.sh (sourced by /init after its
# mounts) starts systemd-udevd and waits for the coldplug events.

# What the image holds besides Debian's "required" priority packages: the
# tools the project's tests use, and the run-time dependencies blktests and
# xfstests document (their READMEs), as far as bookworm has them.
ROOTFS_SUITE=bookworm
ROOTFS_PACKAGES=(
	coreutils util-linux gawk bsdextrautils fdisk udev kmod procps
	e2fsprogs dosfstools xfsprogs btrfs-progs f2fs-tools exfatprogs
	fio blktrace dmsetup cryptsetup-bin mdadm lvm2 thin-provisioning-tools
	mtd-utils nvme-cli
	acl attr psmisc bc python3 perl sed diffutils findutils file hostname
	dbench dump quota uuid-runtime sqlite3 xfsdump keyutils libcap2-bin
	libaio1 liburing2 libgdbm6 libgdbm-compat4 libinih1 jq strace xz-utils
)

# The host's Debian mirror(s), as one-line sources ("deb URI SUITE COMP"),
# restricted to bookworm and its -updates and -security suites.
rootfs_sources() {
	local lines
	# shellcheck disable=SC2016  # apt's format fields, not shell
	lines=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' \
		'Created-By: Packages' 2>/dev/null |
		awk -v s="$ROOTFS_SUITE" '$2 == s || $2 == s "-updates" ||
			$2 == s "-security" { print "deb " $1 " " $2 " " $3 }' |
		LC_ALL=C sort -u)
	[ -n "$lines" ] || lines="deb http://deb.debian.org/debian $ROOTFS_SUITE main"
	printf '%s\n' "$lines"
}

# _rootfs_make TREE IMAGE KVER KROOT: the image itself (called by rootfs_build;
# its text is part of the cache key).
_rootfs_make() {
	local tree=$1 img=$2 kver=$3 kroot=$4 srcs inc mib
	srcs=$(rootfs_sources)
	inc=$(IFS=,; echo "${ROOTFS_PACKAGES[*]}")
	# --mode=unshare: the chroot's mounts live in a private namespace, so
	# nothing of the build can stay mounted on (or change) the host.
	# shellcheck disable=SC2016  # the hook's $1 is mmdebstrap's
	printf '%s\n' "$srcs" | mmdebstrap --quiet --mode=unshare \
		--variant=required --include="$inc" \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-include=/usr/share/doc/*/copyright' \
		--customize-hook='rm -f "$1"/etc/resolv.conf "$1"/etc/hostname' \
		"$ROOTFS_SUITE" "$tree" - >&2 ||
		die "mmdebstrap failed (see above)"
	# The kernel's own modules (Debian's linux-image package would also pull
	# in an initramfs generator): the whole tree, so any in-tree driver the
	# suites want (scsi_debug, null_blk, dm-*, md, xfs, btrfs...) loads.
	mkdir -p "$tree/usr/lib/modules"
	cp -a "$kroot/lib/modules/$kver" "$tree/usr/lib/modules/"
	depmod -b "$tree" "$kver"
	echo ftlblk-vm >"$tree/etc/hostname"
	printf '# <file system> <mount point> <type> <options> <dump> <pass>\n' \
		>"$tree/etc/fstab"
	# Used space + 25 % + 1 GiB for the tests' files (a sparse file; the
	# guest writes into QEMU's snapshot overlay, not into this file).
	mib=$(du -sm "$tree" | cut -f1)
	mib=$((mib + mib / 4 + 1024))
	rm -f "$img"
	truncate -s "${mib}M" "$img"
	mke2fs -q -t ext4 -L ftlblk-rootfs -d "$tree" "$img" "${mib}M" ||
		die "mke2fs -d of the Debian tree failed"
}

rootfs_build() {
	local kver=$1 kroot=$2 cache=$3 key dir old t0
	command -v mmdebstrap >/dev/null || die "mmdebstrap missing (scripts/install-deps)"
	key=$( {
		printf '%s\n' "$ROOTFS_SUITE" "$kver" "${ROOTFS_PACKAGES[@]}"
		rootfs_sources
		declare -f _rootfs_make
	} | sha256sum | cut -c1-12)
	dir="$cache/rootfs/$ROOTFS_SUITE-$kver-$key"
	ROOTFS_IMAGE="$dir/rootfs.raw"
	[ -f "$dir/.done" ] && [ -f "$ROOTFS_IMAGE" ] && return 0
	# Images of older package lists are stale; the caller holds the cache
	# lock (a VM still running on one keeps its open file).
	for old in "$cache/rootfs/$ROOTFS_SUITE-$kver"-*; do
		[ "$old" = "$dir" ] || rm -rf "$old"
	done
	log "building the Debian $ROOTFS_SUITE image in $dir (mmdebstrap, some minutes)"
	t0=$(date +%s)
	rm -rf "$dir"
	mkdir -p "$dir"
	_rootfs_make "$dir/tree" "$ROOTFS_IMAGE" "$kver" "$kroot"
	rm -rf "$dir/tree"
	echo "$(($(date +%s) - t0))" >"$dir/build-seconds"
	touch "$dir/.done"
	log "Debian image built in $(cat "$dir/build-seconds")s: $ROOTFS_IMAGE"
}

# rootfs_stage ROOT KVER KROOT MODULES_DIR: make the per-run initramfs tree
# ROOT boot the Debian image (see the top of this file). tests/vm/init moves
# to /etc/vm/init.
rootfs_stage() {
	local r=$1 kver=$2 kroot=$3 mdir=$4 t m
	mv "$r/init" "$r/etc/vm/init"
	mkdir -p "$r/etc/vm/sbin" "$r/rootfs/modules"
	# depmod over the image's module tree (the same as KROOT's, symlinked)
	# plus the project's modules in extra/; only the index files travel.
	t=$(mktemp -d "${TMPDIR:-/tmp}/vm-depmod.XXXXXX")
	m=$t/lib/modules/$kver
	mkdir -p "$m/extra"
	cp -as "$kroot/lib/modules/$kver/kernel" "$m/"
	cp "$kroot/lib/modules/$kver"/modules.{builtin,builtin.modinfo,order} "$m/"
	local d
	for d in $mdir; do	# directories, space-separated (MODULES_DIR)
		! compgen -G "$d/*.ko" >/dev/null || cp "$d"/*.ko "$m/extra/"
	done
	depmod -b "$t" "$kver" || { rm -rf "$t"; die "depmod for the Debian image failed"; }
	cp "$m"/modules.* "$r/rootfs/modules/"
	rm -rf "$t"
	cat >"$r/init" <<'STAGE1'
#!/bin/sh
# Stage 1 of tests/vm/run --rootfs debian (in the busybox initramfs): mount
# the Debian image (the virtio disk with serial ftlblk-rootfs; QEMU keeps
# its writes in a snapshot overlay), copy this run's files into it and
# switch_root to the ordinary runner /etc/vm/init.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
die() {
	echo "vm-stage1: $*" >/dev/kmsg
	sleep 1
	poweroff -f
}
modprobe -q virtio_pci
modprobe -q virtio_blk || die "cannot load virtio_blk"
modprobe -q ext4 || die "cannot load ext4"
root= i=0
while [ -z "$root" ] && [ $i -lt 200 ]; do
	for s in /sys/block/vd*/serial; do
		[ "$(cat "$s" 2>/dev/null)" = ftlblk-rootfs ] || continue
		d=${s%/serial}
		root=/dev/${d##*/}
	done
	[ -n "$root" ] || sleep 0.1
	i=$((i + 1))
done
[ -n "$root" ] || die "no virtio disk with serial ftlblk-rootfs"
mkdir -p /newroot
mount -t ext4 "$root" /newroot || die "cannot mount $root"
kver=$(uname -r)
n=/newroot
mkdir -p $n/etc/vm $n/tests $n/out $n/usr/local/bin $n/usr/local/sbin \
	"$n/lib/modules/$kver/extra"
cp -a /etc/vm/. $n/etc/vm/
cp -a /tests/. $n/tests/
cp -a /usr/local/bin/. $n/usr/local/bin/ 2>/dev/null
cp -a /etc/vm/sbin/. $n/usr/local/sbin/
rm -rf "$n/lib/modules/$kver/extra"
cp -a "/lib/modules/$kver/extra" "$n/lib/modules/$kver/" 2>/dev/null ||
	mkdir -p "$n/lib/modules/$kver/extra"
cp /rootfs/modules/* "$n/lib/modules/$kver/" || die "cannot install module indexes"
echo "vm-stage1: root $root, switching to /etc/vm/init" >/dev/kmsg
umount /dev /sys /proc
exec switch_root $n /etc/vm/init
STAGE1
	chmod 755 "$r/init"
	# Sourced by /etc/vm/init after its mounts: udev (blktests and
	# xfstests wait with udevadm settle; /dev/disk/by-* links, dm/md/lvm
	# rules work as on an installed Debian).
	cat >"$r/etc/vm/rootfs.sh" <<'HOOK'
# shellcheck shell=sh
mkdir -p /run/udev /run/lock
ln -sf /proc/self/mounts /etc/mtab 2>/dev/null
/lib/systemd/systemd-udevd --daemon --resolve-names=never
udevadm trigger --type=subsystems --action=add
udevadm trigger --type=devices --action=add
udevadm settle --timeout=120 || echo "vm-init: udevadm settle timed out" >/dev/kmsg
HOOK
	# Debian without an init system has no poweroff; busybox' cttyhack
	# (for --shell) is not there either.
	cat >"$r/etc/vm/sbin/poweroff" <<'POWEROFF'
#!/bin/sh
# tests/vm/run --rootfs debian: no init system to ask; power off at once.
# The kernel powers off asynchronously: start no new program after the
# request (loading it from the disk being shut down fails with I/O errors).
sync
echo o >/proc/sysrq-trigger
while :; do :; done
POWEROFF
	cat >"$r/etc/vm/sbin/cttyhack" <<'CTTY'
#!/bin/sh
# tests/vm/run --rootfs debian: the console's tty as controlling terminal
# (after setsid we lead a session without one, so opening the tty makes it
# ours), as busybox' cttyhack does; /dev/console itself cannot be one.
t=$(sed 's/.* //' /sys/class/tty/console/active 2>/dev/null)
[ -c "/dev/${t:-none}" ] || t=console
exec "$@" <>"/dev/$t" >&0 2>&0
CTTY
	chmod 755 "$r/etc/vm/sbin/poweroff" "$r/etc/vm/sbin/cttyhack"
}
