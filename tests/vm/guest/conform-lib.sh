# shellcheck shell=sh
# Helpers of the seed-conformance tests 70-79 (source after /tests/lib.sh).
#
#   cdev_create NAME [ATTR=VALUE...]   configfs ftlblk device, powered on;
#                                      sets $CDEV (ftlblkN, "none" on failure)
#   cdev_ok DESC NAME [ATTR=VALUE...]  the same as a test point
#   cdev_remove NAME                   power off and rmdir
#   cstat DEV NAME                     /sys/block/DEV/ftl/NAME
#   conform ARGS...                    load ftlblk_conform ARGS (dev=, test=,
#                                      ...), re-emit its TAP lines as test
#                                      points, unload it; status 1 if any failed
#                                      or its "done N checks, F failed" line is
#                                      missing or disagrees with the lines seen
#                                      (a failed point then)
#                                      (CONFORM_QUIET=1: no test points, the
#                                      failures as diag lines)
#   trace_start                        ftlblk_discard tracepoint on, buffer empty
#   trace_ranges DEV                   "sector nr_sectors" per discard range
#                                      received by DEV since trace_start
#   ranges_merge                       stdin "start count" lines -> merged,
#                                      sorted "start end" (end exclusive)
#   slab_bios                          active objects of the bio-* and
#                                      biovec-* slab caches, summed

CFS=/sys/kernel/config/ftlblk
TRACE=/sys/kernel/tracing

cdev_create() {
	_n=$1; shift
	CDEV=none
	mkdir "$CFS/$_n" || return 1
	for _a; do
		printf '%s\n' "${_a#*=}" >"$CFS/$_n/${_a%%=*}" || return 1
	done
	echo 1 >"$CFS/$_n/power" || return 1
	CDEV=ftlblk$(cat "$CFS/$_n/index")
	_i=0
	while [ ! -b "/dev/$CDEV" ] && [ $_i -lt 50 ]; do
		sleep 0.1; _i=$((_i + 1))
	done
	[ -b "/dev/$CDEV" ]
}

cdev_ok() {
	_desc=$1; shift
	if cdev_create "$@"; then pass "$_desc"; else fail "$_desc"; fi
}

cdev_remove() {
	[ -d "$CFS/$1" ] || return 0
	echo 0 >"$CFS/$1/power" && rmdir "$CFS/$1"
}

cstat() { sysfs_read "/sys/block/$1/ftl/$2"; }

CONFORM_RUN=0
CONFORM_QUIET=
conform() {
	CONFORM_RUN=$((CONFORM_RUN + 1))
	_mark="conform-mark-$$-$CONFORM_RUN"
	echo "$_mark" >/dev/kmsg
	_out=$(modprobe ftlblk_conform "$@" 2>&1)
	_st=$?
	if [ $_st = 0 ]; then
		_out2=$(rmmod ftlblk_conform 2>&1) || { _st=$?; _out="$_out$_out2"; }
	fi
	dmesg | awk -v m="$_mark" 'f; index($0, m) { f = 1 }' |
		sed -n 's/^.*ftlblk_conform: //p' >/tmp/conform.log
	_bad=0 _seen=0 _nok=0
	while IFS= read -r _l; do
		case $_l in
		"ok "*" - "*)
			_seen=$((_seen + 1))
			[ -n "$CONFORM_QUIET" ] || pass "${_l#* - }" ;;
		"not ok "*" - "*)
			_bad=1 _seen=$((_seen + 1)) _nok=$((_nok + 1))
			if [ -n "$CONFORM_QUIET" ]; then
				diag "$_l"
			else
				fail "${_l#* - }"
			fi ;;
		*) ;;
		esac
	done </tmp/conform.log
	# The module's own summary must agree: N checks printed, F of them
	# failed; a failure it counted but did not print fails here too.
	_sum=$(sed -n 's/^done \([0-9]*\) checks, \([0-9]*\) failed$/\1 \2/p' /tmp/conform.log)
	if [ $_st != 0 ] || [ "$_sum" != "$_seen $_nok" ]; then
		[ -n "$CONFORM_QUIET" ] ||
			fail "ftlblk_conform $* ran to its end, its summary agrees with the $_seen checks seen ($_nok failed)"
		diag "modprobe/rmmod status $_st: $_out; summary: '${_sum:-none}', seen: $_seen checks, $_nok failed"
		sed 's/^/#   /' /tmp/conform.log
		return 1
	fi
	return $_bad
}

# The event is enabled once and only the buffer is cleared after that, and
# with options/record-cmd off: enabling the first event (disabling the
# last) otherwise also (un)registers the comm recorder on sched_switch,
# i.e. patches the tracepoint in __schedule() that every CPU is running,
# and under QEMU TCG that froze the other vCPU into a soft lockup panic
# (reproduced: 1 in ~100 toggles with record-cmd on, none in 600 with it
# off). record-cmd is restored by trace_stop.
TRACE_RECORD_CMD=
trace_start() {
	if [ "$(cat "$TRACE/events/ftlblk/ftlblk_discard/enable")" != 1 ]; then
		[ -n "$TRACE_RECORD_CMD" ] || TRACE_RECORD_CMD=$(cat "$TRACE/options/record-cmd")
		echo 0 >"$TRACE/options/record-cmd"
		echo 8192 >"$TRACE/buffer_size_kb"
		echo 1 >"$TRACE/events/ftlblk/ftlblk_discard/enable"
	fi
	echo 1 >"$TRACE/tracing_on"
	: >"$TRACE/trace"
}

trace_stop() {
	echo 0 >"$TRACE/events/ftlblk/ftlblk_discard/enable"
	[ -z "$TRACE_RECORD_CMD" ] || echo "$TRACE_RECORD_CMD" >"$TRACE/options/record-cmd"
	TRACE_RECORD_CMD=
}

trace_ranges() {
	sed -n "s/^.*ftlblk_discard: $1 sector=\([0-9]*\) nr_sectors=\([0-9]*\).*/\1 \2/p" \
		"$TRACE/trace"
}


ranges_merge() {
	sort -n -k1,1 | awk '
		{ s = $1; e = $1 + $2
		  if (n && s <= ce) { if (e > ce) ce = e; next }
		  if (n) print cs, ce
		  cs = s; ce = e; n = 1 }
		END { if (n) print cs, ce }'
}

slab_bios() {
	for _s in /sys/kernel/slab/bio-* /sys/kernel/slab/biovec-*; do
		[ -e "$_s/shrink" ] && echo 1 >"$_s/shrink" 2>/dev/null
	done
	awk '/^(bio|biovec)-/ { n += $2 } END { print n + 0 }' /proc/slabinfo
}

# Set operations on merged "start end" range files (end exclusive).
# ranges_outside A B: the ranges of A not contained in one range of B.
# (FILENAME, not NR == FNR: with B empty, that would take A for B.)
ranges_outside() {
	awk 'BEGIN { n = 0 } FILENAME == ARGV[1] { bs[n] = $1; be[n] = $2; n++; next }
	     { for (i = 0; i < n; i++) if ($1 >= bs[i] && $2 <= be[i]) next; print }' "$2" "$1"
}

# ranges_overlap A B: the ranges of A that share a sector with one of B.
ranges_overlap() {
	awk 'BEGIN { n = 0 } FILENAME == ARGV[1] { bs[n] = $1; be[n] = $2; n++; next }
	     { for (i = 0; i < n; i++) if ($1 < be[i] && bs[i] < $2) { print; next } }' "$2" "$1"
}

# ranges_sub A B: the sectors of A not in B, as merged ranges.
ranges_sub() {
	awk 'FILENAME == ARGV[1] { for (s = $1; s < $2; s++) b[s] = 1; next }
	     { for (s = $1; s < $2; s++) if (!(s in b)) print s, 1 }' "$2" "$1" | ranges_merge
}

# pages_covered [SECTORS_PER_PAGE]: stdin "sector nr_sectors" ranges as
# received (trace_ranges) -> flash pages they cover whole, summed (what
# ftlblk counts in pages_discarded). Default 8 sectors (4 KiB pages).
pages_covered() {
	awk -v spp="${1:-8}" '{ f = int(($1 + spp - 1) / spp); l = int(($1 + $2) / spp)
		if (l > f) n += l - f } END { print n + 0 }'
}

# ranges_nonzero DEV FILE: non-zero bytes in the merged "start end" ranges
# of FILE, read from DEV, not from a stale page cache: busybox dd falls
# back to buffered reads when its 512-byte buffer is unfit for O_DIRECT,
# so the cache is dropped first.
ranges_nonzero() {
	blockdev --flushbufs "$1"
	while read -r _s _e; do
		dd if="$1" bs=512 skip="$_s" count=$((_e - _s)) iflag=direct 2>/dev/null
	done <"$2" | tr -d '\000' | wc -c
}

# unmap_expect DEV RUNS FREE [SECTORS_PER_PAGE]: what DEV must have
# unmapped for the discard ranges in RUNS ("start count" lines, one per
# range the filesystem issued), from the filesystem's own block map alone,
# never from ftlblk nor from reading DEV: prints "UNMAPPED FULL". FULL =
# the flash pages one range covers whole (ftlblk counts them in
# valid_pages_discarded when they held data); UNMAPPED = those plus the
# partly covered pages that the discards leave all zeroes, which the
# contract unmaps: pages whose every sector is free in FREE ("start end"
# merged sector ranges free in the map after the discards). A free sector
# outside the ranges is known zero because the caller keeps the device
# holding data only where the filesystem has blocks in use (a first fstrim,
# mount -o discard). Call it after the discards, for ranges whose pages
# all held data before. DEV is unused (kept for the callers' symmetry).
unmap_expect() {
	_spp=${4:-8}
	awk -v spp="$_spp" '{ f = int(($1 + spp - 1) / spp); l = int(($1 + $2) / spp)
		for (p = f; p < l; p++) print p }' "$2" | sort -un >/tmp/ue_full
	awk -v spp="$_spp" '$2 > 0 { for (p = int($1 / spp); p <= int(($1 + $2 - 1) / spp); p++) print p }' \
		"$2" | sort -un >/tmp/ue_touched
	# FREE is merged: a page wholly free lies inside one of its ranges.
	_z=$(grep -vxFf /tmp/ue_full /tmp/ue_touched |
		awk -v spp="$_spp" 'FILENAME != "-" { n++; fs[n] = $1; fe[n] = $2; next }
			{ s = $1 * spp; e = s + spp
			  for (i = 1; i <= n; i++) if (fs[i] <= s && e <= fe[i]) { z++; break } }
			END { print z + 0 }' "$3" -)
	echo "$(($(wc -l </tmp/ue_full) + _z)) $(wc -l </tmp/ue_full)"
}

# unmap_state DEV: "valid_pages data_bytes" now (state, never reset).
unmap_state() { echo "$(cstat "$1" valid_pages) $(cstat "$1" data_bytes)"; }

# unmap_delta BEFORE AFTER [PAGE_BYTES]: "pages pages" by which valid_pages
# and data_bytes (in pages) dropped from BEFORE to AFTER (unmap_state).
unmap_delta() {
	echo "$1 $2" | awk -v pb="${3:-4096}" '{ print $1 - $3, ($2 - $4) / pb }'
}
