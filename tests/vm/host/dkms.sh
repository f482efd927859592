#!/bin/bash
# DKMS packaging (README "Install on a Debian machine"): `make deb` builds
# ftlblk-dkms_<VERSION>_all.deb and ftlblk-tools_<VERSION>_<arch>.deb;
# the module is then built from the package's own files the way its
# postinst would, `dkms add` + `dkms build` against linux-headers-$KVER, but
# into a scratch DKMS tree (never `dkms install`, never loaded on this
# machine), and the resulting ftlblk.ko, alone in MODULES_DIR, is booted in
# the VM for the smoke tests 00-boot and 10-load.
# Prints TAP (plan first) and "N passed, N failed"; exits non-zero on failure.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/dkms-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
KVER=${KVER:-$(apt-cache depends linux-headers-amd64 2>/dev/null |
	sed -n 's/^ *Depends: linux-headers-//p' | head -n 1)}
export KVER
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

echo "1..21"
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
dpkg-deb -e "$dkms_deb" "$work/ctrl" 2>/dev/null
grep -q common.postinst "$work/ctrl/postinst" 2>/dev/null &&
	grep -q '^DKMS_NAME=ftlblk$' "$work/ctrl/postinst" &&
	grep -q "^DKMS_VERSION=$version\$" "$work/ctrl/postinst" &&
	grep -q 'dkms remove' "$work/ctrl/prerm" 2>/dev/null
tap $? "dh_dkms maintainer scripts: postinst builds ftlblk $version with DKMS, prerm removes it"

# ---- dkms build into a scratch tree -----------------------------------------
# --sourcetree/--dkmstree keep dkms out of /usr/src and /var/lib/dkms; the
# module-signing key dkms makes for a build goes to the scratch tree too
# (mok_* are read from the environment before dkms' defaults).
dk=(--sourcetree "$work/root/usr/src" --dkmstree "$work/dkms")
mkdir -p "$work/dkms"
export mok_signing_key=$work/dkms/mok.key mok_certificate=$work/dkms/mok.pub
t0=$SECONDS
dkms add "ftlblk/$version" "${dk[@]}" >"$work/dkms.log" 2>&1
tap $? "dkms add ftlblk/$version (scratch tree)" "$(cat "$work/dkms.log")"
dkms build "ftlblk/$version" -k "$KVER" "${dk[@]}" \
	--kernelsourcedir "/usr/src/linux-headers-$KVER" >"$work/build.log" 2>&1
tap $? "dkms build ftlblk/$version -k $KVER" \
	"$(tail -n 20 "$work/build.log"; tail -n 30 "$work/dkms/ftlblk/$version/build/make.log" 2>/dev/null)"
status=$(dkms status "${dk[@]}" 2>&1)
tap "$(t "$status" "ftlblk/$version, $KVER, $(uname -m): built")" \
	"dkms status: built for $KVER" "$status"
ko=$work/dkms/ftlblk/$version/$KVER/$(uname -m)/module/ftlblk.ko
vermagic=$(modinfo -F vermagic "$ko" 2>&1)
tap "$(t "${vermagic%% *}" "$KVER")" "ftlblk.ko's vermagic is $KVER" "$vermagic"
# dkms signs what it builds (Debian's kernel has module signing); its key
# must be the one it made in the scratch tree, not one in /var/lib/dkms.
signer=$(modinfo -F signer "$ko" 2>&1)
[ "$signer" = "DKMS module signing key" ] && [ -s "$mok_signing_key" ]
tap $? "ftlblk.ko is signed with a key dkms made in the scratch tree" \
	"signer: $signer; $(ls -l "$work/dkms" 2>&1)"
echo "# dkms add + build: $((SECONDS - t0))s"
host_state >"$work/host.after"
tap "$(cmp -s "$work/host.before" "$work/host.after" && echo 0 || echo 1)" \
	"nothing written to /var/lib/dkms, /etc/dkms, /lib/modules/$KVER, /usr/src; ftlblk not loaded here" \
	"$(diff "$work/host.before" "$work/host.after" | head -n 20)"

# ---- the built module in the VM ---------------------------------------------
mkdir -p "$work/ko"
cp "$ko" "$work/ko/" 2>/dev/null
t0=$SECONDS
MODULES_DIR=$work/ko "$top/tests/vm/run" --timeout 300 --out "$work/vm" \
	--only 00-boot --only 10-load >"$work/vm.log" 2>&1
st=$?
echo "# VM: $((SECONDS - t0))s"
tap $st "VM: 00-boot and 10-load with the DKMS-built ftlblk.ko only" \
	"$(grep -E '^not ok|^# ' "$work/vm.log" | head -n 20; tail -n 5 "$work/vm.log")"
last=$(tail -n 1 "$work/vm.log")
[[ $last =~ ^([0-9]+)\ passed,\ 0\ failed,\ 0\ skipped$ ]] && [ "${BASH_REMATCH[1]}" -ge 90 ]
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
