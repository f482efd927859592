# shellcheck shell=bash
# Shared by scripts/blktests and scripts/xfstests: run an external test
# suite, built on the host, in the Debian guest (tests/vm/run --rootfs
# debian) against ftlblk devices.
#
#   suite_payload DIR IMAGE   an ext4 image (label ftlblk-suite) holding
#                             DIR's files, made with mke2fs -d (no mount, no
#                             loop device); the guest mounts it read-write
#                             and the suite writes its results there
#   suite_vm OUT SCRIPT IMAGE TIMEOUT [--env N=V]...
#                             boots the Debian guest with IMAGE as a virtio
#                             disk and runs SCRIPT (see suite_guest_prologue);
#                             run directory OUT/vm, exit status SCRIPT's
#   suite_summary LOG ALLOWED_SKIPS
#                             from a log of "NAME ... [passed|failed|not run]"
#                             lines (blktests' format; scripts/xfstests
#                             writes its results the same way): names the
#                             failed tests, then prints the line
#                             "N passed, N failed, N skipped"; a skip of a
#                             test not in ALLOWED_SKIPS (space-separated
#                             names, "block/003" or "block/003 => ftlblk0")
#                             counts as failed. Returns 1 on a failure or
#                             when no test reported at all.

suite_log() { echo "${SUITE_NAME:-suite}: $*" >&2; }
suite_die() { echo "${SUITE_NAME:-suite}: error: $*" >&2; exit 2; }

suite_payload() {
	local dir=$1 img=$2 mib
	mib=$(du -sm "$dir" | cut -f1)
	mib=$((mib + mib / 2 + 64))
	rm -f "$img"
	truncate -s "${mib}M" "$img"
	mke2fs -q -t ext4 -L ftlblk-suite -d "$dir" "$img" ||
		suite_die "mke2fs -d $dir failed"
}

suite_vm() {
	local out=$1 script=$2 img=$3 timeout=$4
	shift 4
	local rc=0
	"$SUITE_TOP/tests/vm/run" --rootfs debian --virtio "$img" \
		--script "$script" --timeout "$timeout" --out "$out/vm" "$@" || rc=$?
	return $rc
}

# The guest script's common start (bash): mount the payload at /suite and
# load ftlblk with $FTLBLK_PARAMS, then wait for udev.
suite_guest_prologue() {
	cat <<'PROLOGUE'
#!/bin/bash
set -uo pipefail
mkdir -p /suite
dev=$(blkid -L ftlblk-suite) || { echo "no payload disk (label ftlblk-suite)"; exit 2; }
mount "$dev" /suite || exit 2
# shellcheck disable=SC2086
modprobe ftlblk ${FTLBLK_PARAMS:-} || { echo "modprobe ftlblk ${FTLBLK_PARAMS:-} failed"; exit 2; }
udevadm settle --timeout=60
echo "# ftlblk: modprobe ftlblk ${FTLBLK_PARAMS:-}; devices: $(cd /sys/block && echo ftlblk*)"
PROLOGUE
}

suite_summary() {
	local log=$1 allowed=" $2 " passed=0 failed=0 skipped=0 name st line
	local unexpected=() failures=()
	local re='^([^ ]+( => [^ ]+)?) .*\[(passed|failed|not run)\][[:space:]]*$'
	while IFS= read -r line; do
		[[ $line =~ $re ]] || continue
		name=${BASH_REMATCH[1]} st=${BASH_REMATCH[3]}
		case $st in
		passed) passed=$((passed + 1)) ;;
		failed) failed=$((failed + 1)); failures+=("$name") ;;
		*)
			if [[ $allowed == *" ${name%% =>*} "* || $allowed == *" $name "* ]]; then
				skipped=$((skipped + 1))
			else
				failed=$((failed + 1))
				unexpected+=("$name")
			fi
			;;
		esac
	done <"$log"
	[ ${#failures[@]} -eq 0 ] || echo "# failed: ${failures[*]}"
	if [ ${#unexpected[@]} -gt 0 ]; then
		echo "# not run, and not in the allowed skips '$2', so counted as failed: ${unexpected[*]}"
	fi
	[ $((passed + failed + skipped)) -gt 0 ] || echo "# no test results in $log"
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" = 0 ] && [ $((passed + skipped)) -gt 0 ]
}
