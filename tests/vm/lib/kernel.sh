# shellcheck shell=bash
# The kernel the VM boots, for $KERNEL (a Debian release, see
# scripts/kernel-env): bookworm's image package is downloaded and unpacked
# into the cache, without installing it (the host's /boot and /lib/modules
# are not touched); every other release's is the linux-image installed in
# that release's chroot.
#
#   kernel_fetch KVER CACHE_DIR   -> sets KROOT (unpacked tree) and KIMAGE
#   (or uses VM_KERNEL_TREE, a kernel built and installed by the project)

kver_default() {
	"$top/scripts/kernel-env" kver
}

kernel_fetch() {
	local kver=$1 cache=$2
	local dir="$cache/kernel/$kver"
	# A kernel of our own (scripts/check-debug builds one with KASAN and
	# lockdep): VM_KERNEL_TREE holds boot/vmlinuz-$kver and lib/modules.
	if [ -n "${VM_KERNEL_TREE:-}" ]; then
		KROOT=$VM_KERNEL_TREE
		KIMAGE="$KROOT/boot/vmlinuz-$kver"
		[ -f "$KIMAGE" ] || die "VM_KERNEL_TREE has no boot/vmlinuz-$kver"
		return 0
	fi
	if [ "${KERNEL:-bookworm}" != bookworm ]; then
		KROOT=$(CACHE_DIR=$cache "$top/scripts/kernel-env" image) ||
			die "no $KERNEL chroot (scripts/kernel-env $KERNEL image)"
		KIMAGE="$KROOT/boot/vmlinuz-$kver"
		[ -f "$KIMAGE" ] || die "the $KERNEL chroot has no boot/vmlinuz-$kver"
		return 0
	fi
	KROOT="$dir/root"
	KIMAGE="$KROOT/boot/vmlinuz-$kver"
	if [ -f "$dir/.done" ] && [ -f "$KIMAGE" ]; then
		return 0
	fi
	log "fetching linux-image-$kver into $dir"
	rm -rf "$dir"
	mkdir -p "$dir/deb"
	local pkg got=
	for pkg in "linux-image-$kver" "linux-image-$kver-unsigned"; do
		# apt's _apt user cannot write into root-owned cache dirs; that only
		# produces a warning, the download still happens (as root).
		if (cd "$dir/deb" && apt-get download -q "$pkg" >/dev/null 2>"$dir/deb/apt.err"); then
			got=$pkg
			break
		fi
	done
	if [ -z "$got" ]; then
		cat "$dir/deb/apt.err" >&2
		die "cannot download linux-image-$kver (tried -unsigned too)"
	fi
	dpkg-deb -x "$dir"/deb/*.deb "$KROOT"
	[ -f "$KIMAGE" ] || die "no $KIMAGE in $got"
	depmod -b "$KROOT" "$kver"
	rm -f "$dir"/deb/*.deb
	touch "$dir/.done"
}
