# shellcheck shell=sh
# TAP helpers for the guest tests (run by dash, /bin/sh in the guest). Use with
#   . /tests/lib.sh       (or: . "$(dirname "$0")/lib.sh")
#
#   plan N                 print the plan up front (or call done_testing)
#   skip_all REASON        print "1..0 # SKIP REASON" and exit 0
#   ok DESC CMD [ARG...]   run CMD; test point passes if it exits 0
#                          (its output is shown as # lines on failure)
#   pass DESC / fail DESC  unconditional test point
#   skip DESC REASON       "ok N - DESC # SKIP REASON"
#   is GOT EXPECTED DESC   string comparison, shows got/expected on failure
#   isnt GOT UNEXPECTED DESC
#   diag MSG...            "# MSG" comment line
#   check_dmesg [DESC] [ERE]   test point: no kernel log line since this file
#                          was sourced matches ERE (default: $TAP_DMESG_ERE)
#   sysfs_read PATH        print a sysfs/procfs value, trimmed; status 1 if
#                          PATH is missing
#   need_cmd CMD... / need_module MOD...   skip_all unless available
#   st DISK STAT           one ftlblk statistic: /sys/block/DISK/ftl/STAT
#   mkdev NAME ATTR=VALUE...   create and power an ftlblk device through
#                          configfs ($CFS/NAME); prints its disk name
#   done_testing           print "1..N" if plan was not called; returns 1 if
#                          any test point failed (use: done_testing; exit $?)
#
# The counter lives in this shell: do not call ok/is/... inside a pipeline
# (`... | while read`) or $(...), whose subshells would lose the numbering.

TAP_N=0
TAP_FAILED=0
TAP_PLANNED=
TAP_DMESG_ERE='WARNING:|BUG:|Oops|general protection|Call Trace|I/O error|EXT4-fs error|FAT-fs \(.*\): error|blocked for more than|refcount_t:|corruption'
TAP_MARK="tap-lib-mark-$$-$(date +%s)"
echo "$TAP_MARK ${0##*/}" >/dev/kmsg 2>/dev/null

diag() { echo "# $*"; }

# kernel_at_least MAJOR.MINOR: the running kernel is that release or newer.
# Where kernels legitimately differ, a test asserts each one's behaviour
# with this, citing the release that changed it (never a skip).
kernel_at_least() {
	_kv=$(uname -r)
	_kmaj=${_kv%%.*} _kmin=${_kv#*.}
	_kmin=${_kmin%%[!0-9]*}
	[ "$_kmaj" -gt "${1%%.*}" ] ||
		{ [ "$_kmaj" -eq "${1%%.*}" ] && [ "$_kmin" -ge "${1#*.}" ]; }
}

plan() { TAP_PLANNED=$1; echo "1..$1"; }

skip_all() { echo "1..0 # SKIP $*"; exit 0; }

_tap_point() {	# STATUS DESC [DIRECTIVE]
	TAP_N=$((TAP_N + 1))
	if [ "$1" = 0 ]; then
		echo "ok $TAP_N - $2${3:+ # $3}"
	else
		echo "not ok $TAP_N - $2${3:+ # $3}"
		TAP_FAILED=$((TAP_FAILED + 1))
	fi
	return "$1"
}

pass() { _tap_point 0 "$1"; }
fail() { _tap_point 1 "$1"; }
skip() { _tap_point 0 "$1" "SKIP ${2:-}"; }

ok() {
	_d=$1; shift
	_o=$("$@" 2>&1)
	_s=$?
	if [ $_s != 0 ]; then
		diag "command: $* (exit $_s)"
		[ -n "$_o" ] && printf '%s\n' "$_o" | sed 's/^/#   /'
	fi
	_tap_point $_s "$_d"
}

is() {
	if [ "$1" = "$2" ]; then
		_tap_point 0 "$3"
	else
		_tap_point 1 "$3"
		diag "     got: '$1'"
		diag "expected: '$2'"
		return 1
	fi
}

isnt() {
	if [ "$1" != "$2" ]; then
		_tap_point 0 "$3"
	else
		_tap_point 1 "$3"
		diag "     got: '$1'"
		diag "expected: anything else"
		return 1
	fi
}

# Kernel log lines written since this file was sourced.
dmesg_since_start() {
	dmesg | awk -v m="$TAP_MARK" 'f; index($0, m) { f = 1 }'
}

check_dmesg() {
	_bad=$(dmesg_since_start | grep -E "${2:-$TAP_DMESG_ERE}")
	if [ -z "$_bad" ]; then
		_tap_point 0 "${1:-no kernel errors in dmesg}"
	else
		_tap_point 1 "${1:-no kernel errors in dmesg}"
		printf '%s\n' "$_bad" | head -n 20 | sed 's/^/#   /'
		return 1
	fi
}

sysfs_read() {
	[ -r "$1" ] || return 1
	_v=$(cat "$1") || return 1
	# trim leading/trailing whitespace
	_v=${_v#"${_v%%[![:space:]]*}"}
	printf '%s\n' "${_v%"${_v##*[![:space:]]}"}"
}

need_cmd() {
	for _c; do
		command -v "$_c" >/dev/null 2>&1 || skip_all "command $_c not available"
	done
}

need_module() {
	for _m; do
		modinfo "$_m" >/dev/null 2>&1 || skip_all "module $_m not available"
	done
}

done_testing() {
	[ -n "$TAP_PLANNED" ] || echo "1..$TAP_N"
	[ "$TAP_FAILED" = 0 ]
}

# ---- ftlblk ----
CFS=/sys/kernel/config/ftlblk

st() { sysfs_read "/sys/block/$1/ftl/$2"; }
# reads_delayed: read copies the test module ftlblk_read_delay has delayed so far.
reads_delayed() { sysfs_read /sys/module/ftlblk_read_delay/parameters/delayed; }
# fio_reads LOG: reads in fio's normal output LOG, verify reads included
# ("issued rwts: total=R,W,..."); its READ summary line is missing when the
# verify reads took no measurable time.
fio_reads() { sed -n 's/.*issued rwts: total=\([0-9]*\),.*/\1/p' "$1"; }

mkdev() {
	mkdir "$CFS/$1" || return 1
	_n=$1
	shift
	for _kv; do
		echo "${_kv#*=}" > "$CFS/$_n/${_kv%%=*}" || return 1
	done
	echo 1 > "$CFS/$_n/power" || return 1
	echo "ftlblk$(cat "$CFS/$_n/index")"
}

# power_fails NAME ATTR=VALUE...: a new configfs device with these, which
# must not power on; prints "refused" (or "powered on", then powers it
# off), then the kernel's "invalid ..." line about it, and removes it.
power_fails() {
	mkdir "$CFS/$1" || return 1
	_n=$1
	shift
	for _kv; do echo "${_kv#*=}" > "$CFS/$_n/${_kv%%=*}" || return 1; done
	_lines=$(dmesg | wc -l)
	if echo 1 2>/dev/null > "$CFS/$_n/power"; then
		echo "powered on"
		echo 0 > "$CFS/$_n/power"
	else
		echo "refused"
	fi
	dmesg | tail -n +$((_lines + 1)) | grep -o 'invalid [a-z_]* .*' | head -n 1
	rmdir "$CFS/$_n"
}

# snap DEV: remember DEV's counters named in $KEYS; deltas DEV: their
# changes since, as "name=delta ..." (snap assigns _b_<name> through eval).
snap() { for _k in $KEYS; do eval "_b_$_k=\$(st $1 $_k)"; done; }
deltas() {
	_o=
	for _k in $KEYS; do
		eval "_o=\"\$_o $_k=\$((\$(st $1 $_k) - _b_$_k))\""
	done
	echo "${_o# }"
}
