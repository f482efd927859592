#!/bin/bash
# DKMS packaging (README "Install"), for the Debian release KERNEL (default
# bookworm; scripts/kernel-env): `make deb` builds ftlblk-dkms_<VERSION>_all.deb
# and ftlblk-tools_<VERSION>_<arch>.deb; in an overlay of that release's
# chroot `apt install ./ftlblk-dkms_*.deb` builds and installs the module
# for the release's kernel (never on this machine), and that ftlblk.ko,
# alone in MODULES_DIR, boots in the release's kernel in the VM for the
# smoke tests 00-boot and 10-load and one discard checked at the flash.
# Prints TAP (plan first) and "N passed, N failed"; exits non-zero on failure.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/dkms-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
KERNEL=${KERNEL:-bookworm}
KVER=$("$top/scripts/kernel-env" "$KERNEL" kver)
export KERNEL KVER KERNEL_ENV_CHROOT=1
# shellcheck source-path=SCRIPTDIR source=../lib/host-tap.sh
. "$top/tests/vm/lib/host-tap.sh"

t() { [ "$1" = "$2" ] && echo 0 || echo 1; }	# status of "A = B"
# What an installation could touch on this machine: the DKMS tree and its
# signing key, the kernel's module directory, /usr/src.
host_state() {
	{
		find /var/lib/dkms /etc/dkms -printf '%p %s %T@\n'
		find "/lib/modules/$KVER" -maxdepth 3 -printf '%p %T@\n'
		find /usr/src -maxdepth 1 -printf '%p %T@\n'
		grep -c '^ftlblk' /proc/modules
	} 2>/dev/null | sort
}

echo "1..20"
version=$(cat "$top/VERSION")
arch=$(dpkg --print-architecture)
dkms_deb=$work/deb/ftlblk-dkms_${version}_all.deb
tools_deb=$work/deb/ftlblk-tools_${version}_$arch.deb
host_state >"$work/host.before"

# ---- make deb -------------------------------------------------------------
make -C "$top" --no-print-directory deb OUT="$work/deb" >"$work/deb.log" 2>&1
tap $? "make deb OUT=DIR" "$(tail -n 30 "$work/deb.log")"
echo "# make deb: ${SECONDS}s"
clv=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version 2>&1)
tap "$(t "$clv" "$version")" "debian/changelog's version ($clv) is VERSION ($version)"
got=$(cd "$work/deb" 2>/dev/null && ls)
tap "$(t "$(echo "$got" | tr '\n' ' ')" "${dkms_deb##*/} ${tools_deb##*/} ")" \
	"exactly ftlblk-dkms_${version}_all.deb and ftlblk-tools_${version}_$arch.deb" "got: $got"

# ---- ftlblk-dkms ----------------------------------------------------------
field() { dpkg-deb -f "$1" "$2" 2>/dev/null; }
tap "$(t "$(field "$dkms_deb" Package)/$(field "$dkms_deb" Version)/$(field "$dkms_deb" Architecture)" \
	"ftlblk-dkms/$version/all")" "ftlblk-dkms: package, version, Architecture: all"
deps=$(field "$dkms_deb" Depends)
[[ $deps =~ (^|, )dkms( |,|$) ]]
tap $? "ftlblk-dkms depends on dkms (Depends: $deps)"
mkdir -p "$work/root"
dpkg-deb -x "$dkms_deb" "$work/root" 2>/dev/null
src=$work/root/usr/src/ftlblk-$version
conf=$src/dkms.conf
[ -f "$conf" ] && grep -qx 'PACKAGE_NAME="ftlblk"' "$conf" &&
	grep -qx "PACKAGE_VERSION=\"$version\"" "$conf"
tap $? "/usr/src/ftlblk-$version/dkms.conf names ftlblk $version" \
	"$(grep PACKAGE_ "$conf" 2>&1)"
# Sources only: a build product in the package would be installed in
# /usr/src and could be taken for the build's own.
products=$(cd "$src" 2>/dev/null && find . -name '*.o' -o -name '*.ko' -o \
	-name '*.mod*' -o -name '*.cmd' -o -name Module.symvers -o -name modules.order)
tap "$(t "$products" "")" "no build products under /usr/src/ftlblk-$version" "$products"
# Only what ftlblk.ko needs: the test modules stay in the repository.
extra=$(cd "$src" 2>/dev/null && find . -path ./tests -prune -print -o \
	\( -name 'conform*' -o -name 'read_delay*' \) -print)
tap "$(t "$extra" "")" "no test module sources under /usr/src/ftlblk-$version" "$extra"
dpkg-deb -e "$dkms_deb" "$work/ctrl" 2>/dev/null
grep -q common.postinst "$work/ctrl/postinst" 2>/dev/null &&
	grep -q '^DKMS_NAME=ftlblk$' "$work/ctrl/postinst" &&
	grep -q "^DKMS_VERSION=$version\$" "$work/ctrl/postinst" &&
	grep -q 'dkms remove' "$work/ctrl/prerm" 2>/dev/null
tap $? "dh_dkms maintainer scripts: postinst builds ftlblk $version with DKMS, prerm removes it"

# ---- apt install in the release's chroot ------------------------------------
# As a user of $KERNEL would: in a chroot of that release made from Debian's
# archive alone (scripts/kernel-env: its gcc, linux-headers, linux-image,
# dkms), `apt install ./ftlblk-dkms_*.deb`; its postinst builds and installs
# the module with DKMS for the release's kernel. The chroot is an overlay,
# so the cached one (and this machine) stay as they were.
t0=$SECONDS
ov=$work/overlay
mkdir -p "$ov" "$work/out"
cat >"$work/install.sh" <<'INSTALL'
#!/bin/sh
# Runs inside the chroot: install, then report what DKMS made.
set -u
deb=$1 out=$2 kver=$3
export DEBIAN_FRONTEND=noninteractive
apt-get install -y "$deb" >"$out/apt.log" 2>&1
echo $? >"$out/apt.status"
dkms status ftlblk >"$out/dkms-status" 2>&1
find "/lib/modules/$kver/updates" -name 'ftlblk.ko*' >"$out/ko-path" 2>/dev/null
ko=$(head -n 1 "$out/ko-path")
case $ko in
*.ko.xz) xz -dc "$ko" >"$out/ftlblk.ko" ;;
*.ko.zst) zstd -qdc "$ko" >"$out/ftlblk.ko" ;;
*.ko) cp "$ko" "$out/ftlblk.ko" ;;
esac
modinfo -F vermagic "$out/ftlblk.ko" >"$out/vermagic" 2>&1
cp /var/lib/dkms/ftlblk/*/build/make.log "$out/make.log" 2>/dev/null
exit 0
INSTALL
chmod 755 "$work/install.sh"
cp "$dkms_deb" "$work/out/"
KERNEL_ENV_OVERLAY=$ov KERNEL_ENV_BIND=$work "$top/scripts/kernel-env" "$KERNEL" run \
	"$work/install.sh" "$work/out/${dkms_deb##*/}" "$work/out" "$KVER" >"$work/chroot.log" 2>&1
tap "$(cat "$work/out/apt.status" 2>/dev/null || echo 1)" \
	"$KERNEL chroot: apt install ./${dkms_deb##*/}" \
	"$(tail -n 20 "$work/out/apt.log" 2>/dev/null; tail -n 10 "$work/chroot.log"; tail -n 20 "$work/out/make.log" 2>/dev/null)"
# bookworm's dkms (3.0.10) prints readelf warnings before the status line
# for a kernel built by another compiler release (bookworm-backports').
status=$(grep '^ftlblk/' "$work/out/dkms-status" 2>/dev/null)
[[ $status == "ftlblk/$version, $KVER, $(uname -m): installed"* ]]
tap $? "$KERNEL chroot: dkms status says installed for $KVER" \
	"$(cat "$work/out/dkms-status" 2>/dev/null)"
vermagic=$(cat "$work/out/vermagic" 2>/dev/null)
tap "$(t "${vermagic%% *}" "$KVER")" "the installed ftlblk.ko ($(cat "$work/out/ko-path" 2>/dev/null)) has vermagic $KVER" "$vermagic"
echo "# chroot install: $((SECONDS - t0))s"
host_state >"$work/host.after"
tap "$(cmp -s "$work/host.before" "$work/host.after" && echo 0 || echo 1)" \
	"nothing written to this machine's /var/lib/dkms, /etc/dkms, /lib/modules, /usr/src; ftlblk not loaded here" \
	"$(diff "$work/host.before" "$work/host.after" | head -n 20)"

# ---- the installed module in the VM -----------------------------------------
# That very ftlblk.ko, alone, boots in the release's kernel: the smoke tests
# and one discard checked at the flash.
mkdir -p "$work/ko" "$work/guest"
cp "$work/out/ftlblk.ko" "$work/ko/" 2>/dev/null
cp -a "$top/tests/vm/guest/lib.sh" "$top/tests/vm/guest/00-boot.sh" \
	"$top/tests/vm/guest/10-load.sh" "$work/guest/"
cat >"$work/guest/40-dkms-discard.sh" <<'GUEST'
#!/bin/sh
# The DKMS-installed module: /dev/ftlblk0 with discard on; blkdiscard of
# 1 MiB of written data unmaps exactly 256 flash pages.
. /tests/lib.sh
need_module ftlblk
plan 6
ok "modprobe ftlblk" modprobe ftlblk
ok "/dev/ftlblk0 exists" test -b /dev/ftlblk0
isnt "$(sysfs_read /sys/block/ftlblk0/queue/discard_max_bytes)" 0 "discard is on"
dd if=/dev/urandom of=/dev/ftlblk0 bs=1M count=2 oflag=direct 2>/dev/null
v0=$(st ftlblk0 valid_pages)
ok "blkdiscard 1 MiB" blkdiscard -f -o 0 -l 1048576 /dev/ftlblk0
is "$((v0 - $(st ftlblk0 valid_pages)))" 256 "exactly 256 pages unmapped"
ok "modprobe -r ftlblk" modprobe -r ftlblk
done_testing
GUEST
t0=$SECONDS
VM_GUEST_DIR=$work/guest MODULES_DIR=$work/ko "$top/tests/vm/run" --timeout 300 \
	--out "$work/vm" >"$work/vm.log" 2>&1
st=$?
echo "# VM: $((SECONDS - t0))s"
tap $st "VM ($KVER): 00-boot, 10-load and a discard with the DKMS-installed ftlblk.ko only" \
	"$(grep -E '^not ok|^# ' "$work/vm.log" | head -n 20; tail -n 5 "$work/vm.log")"
last=$(tail -n 1 "$work/vm.log")
[[ $last =~ ^([0-9]+)\ passed,\ 0\ failed,\ 0\ skipped$ ]] && [ "${BASH_REMATCH[1]}" -ge 100 ]
tap $? "VM: every check passed, none skipped ($last)"

# ---- ftlblk-tools ---------------------------------------------------------
tap "$(t "$(field "$tools_deb" Package)/$(field "$tools_deb" Version)/$(field "$tools_deb" Architecture)" \
	"ftlblk-tools/$version/$arch")" "ftlblk-tools: package, version, Architecture: $arch"
mkdir -p "$work/troot"
dpkg-deb -x "$tools_deb" "$work/troot" 2>/dev/null
sim=$work/troot/usr/bin/ftlsim man=$work/troot/usr/share/man/man1/ftlsim.1.gz
help=$("$sim" --help 2>&1)
tap $? "the packaged /usr/bin/ftlsim --help exits 0" "$help"
# 16 MiB = 4096 pages, --writes 2: 8192 measured host page writes.
json=$("$sim" --size 16M --pages-per-block 64 --op-percent 10 --fill \
	--writes 2 --check --json 2>&1)
grep -q '"host_pages_written": 8192,' <<<"$json"
tap $? "the packaged ftlsim simulates (8192 host page writes)" "$(head -n 5 <<<"$json")"
warn=$(zcat "$man" 2>&1 | groff -man -ww -z -Tutf8 2>&1) && [ -z "$warn" ]
tap $? "man page /usr/share/man/man1/ftlsim.1.gz renders without warnings" "$warn"
# Every option --help lists must be in the man page (as roff writes it: \-\-).
text=$(zcat "$man" 2>/dev/null | sed 's/\\-/-/g')
undoc=
for o in $(grep -oE -- '--[a-z][a-z-]*' <<<"$help" | sort -u); do
	grep -qE -- "(^|[^a-z-])$o([^a-z-]|\$)" <<<"$text" || undoc="$undoc $o"
done
opts=$(grep -oE -- '--[a-z][a-z-]*' <<<"$help" | sort -u | wc -l)
[ "$opts" -ge 15 ] && [ -z "$undoc" ]
tap $? "the man page documents all $opts options of ftlsim --help" "undocumented:$undoc"

tap_summary
