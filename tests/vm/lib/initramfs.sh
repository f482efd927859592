# shellcheck shell=bash
# Build the guest initramfs in two parts, concatenated into one file (the
# kernel unpacks concatenated cpio archives in order, later files win):
#
#   base.cpio.zst  cached per KVER, its module list and the version of this
#                  file: busybox,
#                  the Debian tools the tests use with their shared libraries,
#                  and the in-tree kernel modules the tests need.
#   run.cpio.zst   rebuilt on every run: /init, the guest tests, the run's
#                  configuration, and /lib/modules/$KVER with the project's
#                  modules in extra/ and depmod run over the result.

# Host programs copied into the guest (with their libraries). Missing optional
# ones are only warned about.
VM_TOOLS=(
	dash bash
	fio blkdiscard fstrim blockdev losetup
	mkfs.vfat mkfs.fat fsck.fat fsck.vfat fatlabel
	mke2fs mkfs.ext4 e2fsck fsck.ext4 debugfs dumpe2fs tune2fs filefrag
	blktrace blkparse btt sfdisk
	kmod perf nvme
	ftl_format ftl_check mtdinfo
	mount umount
	dmsetup cryptsetup mdadm truncate
	mkswap swapon swapoff
)
VM_TOOLS_REQUIRED="dash bash mount umount mkswap swapon swapoff fio blkdiscard fstrim blockdev losetup mkfs.vfat fsck.fat mke2fs e2fsck debugfs dumpe2fs filefrag blktrace blkparse kmod ftl_format ftl_check dmsetup cryptsetup mdadm nvme"

# Tools taken from Debian packages that are downloaded and unpacked into
# the cache rather than installed on the host: mdadm's maintainer scripts
# would rebuild the host's own initramfs and start its monitoring service;
# nvme-cli's would write the host's NVMe host NQN and enable its
# boot-time autoconnect service. Each entry: the tool, then its package,
# then (comma-separated) packages of libraries it needs that the host
# does not have.
VM_TOOLS_UNPACKED=(mdadm:mdadm nvme:nvme-cli,libnvme1)

# In-tree modules (their dependency closure, softdeps included, is added).
VM_KMODS=(
	configfs null_blk brd zram loop
	vfat fat nls_ascii nls_cp437 nls_iso8859_1 nls_utf8 ext4
	ahci libahci libata sd_mod
	virtio_pci virtio_blk virtio_console
	lz4 lz4hc zstd
	mtdram nandsim mtdswap ftl
	dm-mod dm-crypt dm-thin-pool raid0 raid1 md-mod
	af_alg algif_skcipher algif_hash xts aesni_intel ecb cbc
	target_core_mod target_core_iblock tcm_loop
	nvme nvmet nvmet-tcp nvme-tcp
)
# Algorithm modules that later kernels folded into lib/ or build in (the
# CRC and hash implementations after 6.12), and nvme-loop, which Debian
# 12's 6.1 does not build (CONFIG_NVME_TARGET_LOOP unset; its tests use
# nvmet-tcp there): copied where they exist.
VM_KMODS_OPTIONAL=(
	crc32c_generic crc32c-intel crct10dif_generic crct10dif-pclmul
	crc64_rocksoft_generic aes_generic sha256_generic sha512_generic
	nvme-loop virtio_rng
)

# unpacked_tool NAME CACHE -> the path of tool NAME from its package in
# VM_TOOLS_UNPACKED (apt-get download + dpkg-deb -x under CACHE/debs), or
# nothing if it is not such a tool or cannot be had.
unpacked_tool() {
	local name=$1 cache=$2 e pkgs pkg dir p deb
	for e in "${VM_TOOLS_UNPACKED[@]}"; do
		[ "${e%%:*}" = "$name" ] || continue
		pkgs=${e#*:}
		pkg=${pkgs%%,*}
		dir=$cache/debs/$pkg
		if [ ! -f "$dir/.done" ] || [ "$(cat "$dir/.done")" != "$pkgs" ]; then
			rm -rf "$dir"
			mkdir -p "$dir/root"
			# shellcheck disable=SC2086  # the package list
			(cd "$dir" && apt-get download -q ${pkgs//,/ } >/dev/null 2>&1) ||
				return 0
			for deb in "$dir"/*.deb; do
				dpkg-deb -x "$deb" "$dir/root" || return 0
			done
			echo "$pkgs" >"$dir/.done"
		fi
		for p in "$dir"/root/{usr/sbin,usr/bin,sbin,bin}/"$name"; do
			[ -x "$p" ] && { echo "$p"; return 0; }
		done
	done
}

# Copy one file into $root at the same path, following symlinks, and (for
# ELF files) every shared library ldd names, the dynamic loader included.
# With $3, an unpacked package tree: its libraries are found there and go
# to their packaged path in $root.
_copy_with_libs() {
	local src=$1 root=$2 tree=${3:-} lib dst
	local libpath=${tree:+$tree/usr/lib/x86_64-linux-gnu:$tree/lib/x86_64-linux-gnu}
	mkdir -p "$root$(dirname "$src")"
	cp -L "$src" "$root$src"
	LD_LIBRARY_PATH=$libpath ldd "$src" 2>/dev/null | grep -o '/[^ )]*' |
	while read -r lib; do
		dst=$lib
		[ -n "$tree" ] && dst=${lib#"$tree"}
		[ -e "$root$dst" ] && continue
		mkdir -p "$root$(dirname "$dst")"
		cp -L "$lib" "$root$dst"
	done
}

# Copy module NAME and its closure from kernel tree $kroot into $root.
_copy_kmod() {
	local name=$1 kroot=$2 root=$3 kver=$4 path rel
	local out
	if ! out=$(modprobe -d "$kroot" -S "$kver" --show-depends "$name" 2>&1); then
		# A kernel of our own may lack (or build in) what Debian's has.
		[ -n "${VM_KERNEL_TREE:-}" ] || die "module $name not found in $kroot: $out"
		warn "module $name not in $kroot, skipped"
		return 0
	fi
	printf '%s\n' "$out" | while read -r cmd path _; do
		[ "$cmd" = insmod ] || continue
		rel=${path#"$kroot"}
		mkdir -p "$root$(dirname "$rel")"
		case $path in
		*.ko) cp "$path" "$root$rel" ;;
		*.ko.xz) xz -dc "$path" >"$root${rel%.xz}" ;;
		*.ko.zst) zstd -qdc "$path" >"$root${rel%.zst}" ;;
		*.ko.gz) gzip -dc "$path" >"$root${rel%.gz}" ;;
		esac
	done
}

_cpio_zst() {	# DIR OUT
	(cd "$1" && find . -mindepth 1 | LC_ALL=C sort |
		cpio --quiet -o -H newc -R 0:0) | zstd -q -T0 "${3:--3}" -o "$2" -f
}

# base_build KVER KROOT CACHE -> sets BASE_ROOT, BASE_CPIO
base_build() {
	local kver=$1 kroot=$2 cache=$3 key
	# The kernel's module list too: a rebuilt debug kernel keeps its KVER.
	key=$({ cat "${BASH_SOURCE[0]}" /usr/bin/busybox
		cat "$kroot/lib/modules/$kver/modules.order" 2>/dev/null || true
	} | sha256sum | cut -c1-12)
	local dir="$cache/initramfs/$kver-$key"
	BASE_ROOT="$dir/root"
	BASE_CPIO="$dir/base.cpio.zst"
	[ -f "$dir/.done" ] && return 0
	# Bases built by older versions of this file are stale; the caller
	# holds the cache lock, so no run is reading them now.
	local old
	for old in "$cache/initramfs/$kver"-*; do
		[ "$old" = "$dir" ] || rm -rf "$old"
	done
	log "building base initramfs in $dir"
	rm -rf "$dir"
	mkdir -p "$BASE_ROOT"
	local r=$BASE_ROOT d t p
	# merged /usr like the host, so /bin/bash, /sbin/mkfs.ext4 and
	# /usr/sbin/mkfs.ext4 all resolve whatever path ldd/which reported.
	for d in usr/bin usr/sbin usr/lib usr/lib64 etc dev proc sys tmp run \
		mnt out tests root var/tmp; do
		mkdir -p "$r/$d"
	done
	for d in bin sbin lib lib64; do
		ln -s "usr/$d" "$r/$d"
	done
	ln -s /proc/mounts "$r/etc/mtab"
	# busybox first; the real tools copied afterwards replace its applets.
	[ -x /bin/busybox ] || die "busybox-static missing"
	cp /bin/busybox "$r/bin/busybox"
	local applet
	for applet in $(/bin/busybox --list-full); do
		[ -e "$r/$applet" ] || ln -s /bin/busybox "$r/$applet"
	done
	for t in "${VM_TOOLS[@]}"; do
		p=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$t" || true)
		local unpacked=''
		if [ -z "$p" ]; then
			unpacked=$(unpacked_tool "$t" "$cache")
			if [ -n "$unpacked" ]; then
				# into the guest at its packaged path
				rm -f "$r/sbin/$t" "$r/bin/$t" "$r/usr/sbin/$t" "$r/usr/bin/$t"
				mkdir -p "$r/usr/sbin"
				_copy_with_libs "$unpacked" "$r" "${unpacked%/usr/*bin/*}"
				mv "$r$unpacked" "$r/usr/sbin/$t"
				rm -rf "${r:?}$cache"
				continue
			fi
		fi
		if [ -z "$p" ]; then
			case " $VM_TOOLS_REQUIRED " in
			*" $t "*) die "required tool $t not found on the host" ;;
			*) warn "optional tool $t not found, not in the initramfs" ;;
			esac
			continue
		fi
		rm -f "$r$p" "$r/bin/$t" "$r/sbin/$t" "$r/usr/bin/$t" "$r/usr/sbin/$t"
		_copy_with_libs "$p" "$r"
	done
	# /bin/sh is dash, not busybox ash: Debian's busybox-static runs its own
	# applets in preference to $PATH ("standalone shell"), so under ash
	# blkdiscard, losetup, modprobe, mkfs.vfat... would be busybox's.
	rm -f "$r/bin/sh"
	ln -s "$(PATH=/usr/bin:/bin command -v dash)" "$r/bin/sh"
	# glibc's iconv modules for the DOS code pages mkfs.fat/fsck.fat
	# convert volume labels and names with (else: "Cannot initialize
	# conversion from codepage 850").
	local gconv=/usr/lib/x86_64-linux-gnu/gconv
	if [ -d "$gconv" ]; then
		mkdir -p "$r$gconv"
		cp -a "$gconv"/gconv-modules* "$r$gconv/"
		for t in IBM437 IBM850 ISO8859-1; do
			if [ -f "$gconv/$t.so" ]; then
				cp "$gconv/$t.so" "$r$gconv/"
			fi
		done
	fi
	# terminfo for bash's line editing in --shell
	for t in l/linux v/vt100 v/vt220 x/xterm x/xterm-256color d/dumb; do
		[ -f "/usr/share/terminfo/$t" ] && p=/usr/share/terminfo/$t ||
			p=/lib/terminfo/$t
		[ -f "$p" ] || continue
		mkdir -p "$r$(dirname "$p")"
		cp "$p" "$r$p"
	done
	# kmod's module tools (handle softdeps, options, modules.dep.bin).
	for t in modprobe insmod rmmod lsmod modinfo depmod; do
		rm -f "$r/sbin/$t" "$r/bin/$t" "$r/usr/sbin/$t" "$r/usr/bin/$t"
		ln -s /usr/bin/kmod "$r/sbin/$t"
	done
	printf 'root:x:0:0:root:/root:/bin/sh\n' >"$r/etc/passwd"
	printf 'root:x:0:\n' >"$r/etc/group"

	local m
	for m in "${VM_KMODS[@]}"; do
		_copy_kmod "$m" "$kroot" "$r" "$kver"
	done
	for m in "${VM_KMODS_OPTIONAL[@]}"; do
		modprobe -q -d "$kroot" -S "$kver" --show-depends "$m" >/dev/null 2>&1 ||
			continue
		_copy_kmod "$m" "$kroot" "$r" "$kver"
	done
	cp "$kroot/lib/modules/$kver"/modules.{builtin,builtin.modinfo,order} \
		"$r/lib/modules/$kver/"
	depmod -b "$r" "$kver"

	# The module tree goes into the per-run archive (depmod output changes
	# with the project modules), so keep it out of the base archive.
	local tmp="$dir/base-cpio-root"
	cp -a "$r" "$tmp"
	rm -rf "$tmp/usr/lib/modules"
	_cpio_zst "$tmp" "$BASE_CPIO" -9
	rm -rf "$tmp"
	touch "$dir/.done"
}

# Small C programs the guest tests need (exact errno of an ioctl, threads
# racing on one device): tests/vm/tools/NAME.c becomes /usr/local/bin/NAME,
# linked statically so it needs nothing from the initramfs. Built once per
# version of the sources (ftlsim's and the core's included) and compiler into CACHE_DIR/guest-tools/KEY (every
# VM boot of make check needs them: 7 s of gcc each time otherwise).
_build_guest_tools() {	# ROOT
	local src tools_dir key dir
	tools_dir="$(dirname "${BASH_SOURCE[0]}")/../tools"
	compgen -G "$tools_dir/*.c" >/dev/null || return 0
	# ftlsim.c includes the simulator's and the core's sources
	key=$({ cat "$tools_dir"/*.c "$tools_dir"/*.h "$tools_dir"/../../../ftl/*.[ch] \
		"$tools_dir"/../../../tools/ftlsim/*.[ch] 2>/dev/null; gcc --version; } |
		sha256sum | cut -c1-12)
	dir=${CACHE_DIR:?}/guest-tools/$key
	if [ ! -f "$dir/.done" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		for src in "$tools_dir"/*.c; do
			gcc -static -O2 -pthread -Wall -Wextra -Werror \
				-o "$dir/$(basename "$src" .c)" "$src" ||
				die "cannot build guest tool $src"
		done
		touch "$dir/.done"
	fi
	mkdir -p "$1/usr/local/bin"
	cp "$dir"/* "$1/usr/local/bin/"
	_build_liburing_tools "$1" "$tools_dir/liburing" trixie
	# 7.x's write streams: only sid's headers and liburing know the field,
	# and only sid's kernel has streams to test
	[ "${KERNEL:-bookworm}" != sid ] ||
		_build_liburing_tools "$1" "$tools_dir/liburing-sid" sid
}

# The guest tools on liburing (tests/vm/tools/liburing/NAME.c): Debian 12's
# liburing (2.3) predates the calls they make, so they are built in the
# trixie chroot (scripts/kernel-env; liburing 2.9) with its gcc, statically,
# as a user of that release would; those of liburing-sid/ in sid's (2.15).
# Cached per sources and chroot.
_build_liburing_tools() {	# ROOT SRC_DIR RELEASE
	local src_dir=$2 rel=$3 top chroot key dir src
	compgen -G "$src_dir/*.c" >/dev/null || return 0
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
	chroot=$(env -u KVER KERNEL="$rel" "$top/scripts/kernel-env" root) ||
		die "no $rel chroot for the liburing guest tools"
	key=$({ cat "$src_dir"/*.c "$src_dir"/../*.h; echo "$chroot"; } |
		sha256sum | cut -c1-12)
	dir=${CACHE_DIR:?}/guest-tools/liburing-$rel-$key
	if [ ! -f "$dir/.done" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		dir=$(cd -P "$dir" && pwd)
		for src in "$src_dir"/*.c; do
			src=$(cd -P "$(dirname "$src")" && pwd)/$(basename "$src")
			env -u KVER KERNEL="$rel" KERNEL_ENV_BIND="$dir $(dirname "$src")" \
				"$top/scripts/kernel-env" run gcc -static -O2 \
				-Wall -Wextra -Werror -I"$(dirname "$src")/.." \
				-o "$dir/$(basename "$src" .c)" "$src" -luring ||
				die "cannot build guest tool $src ($rel chroot)"
		done
		touch "$dir/.done"
	fi
	cp "$dir"/* "$1/usr/local/bin/"
}

# run_build KVER KROOT WORK MODULES_DIR OUT_IMAGE
# Uses BASE_ROOT/BASE_CPIO; $WORK/root must already hold /init, /tests and
# /etc/vm/*. Adds the module tree and writes OUT_IMAGE.
run_build() {
	local kver=$1 kroot=$2 work=$3 mdir=$4 out=$5
	local r="$work/root" ko dep
	mkdir -p "$r/usr/lib/modules"
	ln -s usr/lib "$r/lib"
	cp -a "$BASE_ROOT/usr/lib/modules/$kver" "$r/usr/lib/modules/"
	local kos=() d
	# $mdir: directories, space-separated (MODULES_DIR)
	for d in $mdir; do
		! compgen -G "$d/*.ko" >/dev/null || kos+=("$d"/*.ko)
	done
	if [ ${#kos[@]} -eq 0 ]; then
		warn "no project modules in ${mdir:-<unset>}/*.ko; not staging any"
	else
		mkdir -p "$r/lib/modules/$kver/extra"
		for ko in "${kos[@]}"; do
			cp "$ko" "$r/lib/modules/$kver/extra/"
			# in-tree modules the project module needs
			for dep in $(modinfo -F depends "$ko" | tr ',' ' '); do
				_copy_kmod "$dep" "$kroot" "$r" "$kver"
			done
			log "staged $(basename "$ko")"
		done
	fi
	depmod -b "$r" "$kver"
	_build_guest_tools "$r"
	_cpio_zst "$r" "$work/run.cpio.zst" -3
	cat "$BASE_CPIO" "$work/run.cpio.zst" >"$out"
}
