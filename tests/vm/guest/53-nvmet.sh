#!/bin/sh
# ftlblk's NVMe face: the kernel's own NVMe target (nvmet, block-device
# backend) exports an ftlblk device as a namespace in the same guest, the
# guest's NVMe host driver attaches it, and nvme-cli's commands reach the
# flash exactly (docs/nvme.md is the recipe this test follows):
#  - the transport: nvme-loop where Debian builds it (6.12 and later);
#    Debian 12's 6.1 does not (CONFIG_NVME_TARGET_LOOP unset): nvmet-tcp
#    on 127.0.0.1 there;
#  - Identify Namespace carries what nvmet derives from ftlblk's limits
#    (nvmet_bdev_set_limits()): the size, the LBA size, NPWG from the
#    flash page, NPDG from discard_granularity; DLFEAT 0x9 (write zeroes
#    may deallocate, deallocated blocks read zeroes) from 6.17, when
#    ftlblk advertises write zeroes with unmap, 0 before 6.17 and on a
#    discard=0 device; ONCS has Dataset Management and Write Zeroes;
#  - `nvme dsm --ad` (one range, then two): the device discards exactly
#    those pages, which read zeroes through both block devices while
#    every other page keeps its data, and with remanence=1 the data stays
#    in the flash image (deallocate is not an erase);
#  - `nvme write-zeroes`, with and without DEAC: nvmet's backend issues a
#    write-zeroes without REQ_NOUNMAP either way (every kernel here), so
#    ftlblk unmaps the pages (ftlblk:ftlblk_request shows flags=unmap)
#    rather than programming zeroes;
#  - a discard=0 device: DSM deallocate fails, the data stays.
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
need_cmd nvme pagegrep md5sum
plan 31

NQN=nqn.2026-12.org.ftlblk:test
HOSTUUID=0f7b1c2e-4b7e-4d0a-9a43-6c6b7a1f0053
NT=/sys/kernel/config/nvmet
TR=/sys/kernel/tracing

# nvmet_down: disconnect and take the target's configuration apart.
nvmet_down() {
	nvme disconnect -n "$NQN" >/dev/null 2>&1
	rm -f "$NT/ports/1/subsystems/$NQN"
	[ -d "$NT/ports/1" ] && rmdir "$NT/ports/1"
	[ -d "$NT/subsystems/$NQN/namespaces/1" ] &&
		echo 0 >"$NT/subsystems/$NQN/namespaces/1/enable" &&
		rmdir "$NT/subsystems/$NQN/namespaces/1"
	[ -d "$NT/subsystems/$NQN" ] && rmdir "$NT/subsystems/$NQN"
	return 0
}
cleanup() {
	echo 0 >"$TR/events/ftlblk/ftlblk_request/enable" 2>/dev/null
	nvmet_down
	for n in nv nv0; do [ -d "$CFS/$n" ] && rmdir "$CFS/$n"; done
	rm -f /tmp/nv.ref
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

# nvmet_up DEV: export /dev/DEV as namespace 1 of $NQN on port 1
# (transport $T) and connect to it; prints the namespace's block device.
nvmet_up() {
	mkdir "$NT/subsystems/$NQN" &&
		echo 1 >"$NT/subsystems/$NQN/attr_allow_any_host" &&
		mkdir "$NT/subsystems/$NQN/namespaces/1" &&
		echo "/dev/$1" >"$NT/subsystems/$NQN/namespaces/1/device_path" &&
		echo 1 >"$NT/subsystems/$NQN/namespaces/1/enable" &&
		mkdir "$NT/ports/1" &&
		echo "$T" >"$NT/ports/1/addr_trtype" || return 1
	if [ "$T" = tcp ]; then
		echo ipv4 >"$NT/ports/1/addr_adrfam" &&
			echo 127.0.0.1 >"$NT/ports/1/addr_traddr" &&
			echo 4420 >"$NT/ports/1/addr_trsvcid" || return 1
	fi
	ln -s "$NT/subsystems/$NQN" "$NT/ports/1/subsystems/$NQN" || return 1
	# the host NQN's UUID must be the host ID (6.x refuses a mismatch)
	set -- -t "$T" -n "$NQN" --hostid="$HOSTUUID" \
		--hostnqn="nqn.2014-08.org.nvmexpress:uuid:$HOSTUUID"
	[ "$T" = tcp ] && set -- "$@" -a 127.0.0.1 -s 4420
	nvme connect "$@" >/dev/null || return 1
	# the namespace's block device: in the subsystem that has our NQN,
	# once the host's namespace scan (asynchronous) has added it
	for _ in $(seq 50); do
		for s in /sys/class/nvme-subsystem/*; do
			[ "$(cat "$s/subsysnqn" 2>/dev/null)" = "$NQN" ] || continue
			for n in "$s"/nvme*n1; do
				[ -b "/dev/${n##*/}" ] && basename "$n" && return 0
			done
		done
		sleep 0.1
	done
	return 1
}
# idf CMD FIELD: a field of `nvme CMD /dev/$B` (id-ns, id-ctrl).
idf() { nvme "$1" "/dev/$B" | sed -n "s/^$2 *: *//p" | tr -d ' '; }
# sums DEV PAGE COUNT: md5 of 4 KiB pages; ref PAGE COUNT: of /tmp/nv.ref.
sums() { dd if="/dev/$1" bs=4096 skip="$2" count="$3" iflag=direct 2>/dev/null | md5sum; }
ref() { dd if=/tmp/nv.ref bs=4096 skip="$1" count="$2" 2>/dev/null | md5sum; }
zeroes() { dd if=/dev/zero bs=4096 count="$1" 2>/dev/null | md5sum; }
# requests: the ftlblk_request events but reads since the last call, as
# "op:sector+nr_sectors:flags" words.
requests() {
	sed -n 's/.*ftlblk_request: [^ ]* op=\([^ ]*\) sector=\([0-9]*\) nr_sectors=\([0-9]*\) flags=\([^ ]*\) class=0$/\1:\2+\3:\4/p' \
		"$TR/trace" | grep -v '^read:' | tr '\n' ' '
	: >"$TR/trace"
}
lba0() { echo $(($1 / 512 - 1)); }	# bytes -> 0's based count of LBAs

ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
D=$(mkdev nv size=16 pages_per_block=16 remanence=1)
ok "modprobe nvmet" modprobe nvmet
if kernel_at_least 6.12; then
	T=loop
	ok "6.12+: nvme-loop, the in-kernel loop transport" modprobe nvme-loop
else
	T=tcp
	ok "6.1: no nvme-loop in Debian 12 (CONFIG_NVME_TARGET_LOOP unset): nvmet-tcp on 127.0.0.1" \
		sh -c '! modprobe -q nvme-loop && modprobe nvmet-tcp && modprobe nvme-tcp && ip link set lo up'
fi
B=$(nvmet_up "$D")
ok "/dev/$D exported as $NQN ($T) and connected: /dev/$B" test -b "/dev/$B"

# ---- what nvmet derives from ftlblk's limits --------------------------
Q=/sys/block/$D/queue
is "$(idf id-ns nsze) $(idf id-ns 'lbaf  0' | sed 's/.*lbads:\([0-9]*\).*/\1/')" \
	"$(printf '0x%x' "$(blockdev --getsz "/dev/$D")") 9" \
	"Identify Namespace: NSZE = the device's 512-byte sectors, LBA size 2^9"
is "npwg=$(idf id-ns npwg) npdg=$(idf id-ns npdg)" \
	"npwg=$(lba0 "$(cat "$Q/physical_block_size")") npdg=$(lba0 "$(cat "$Q/discard_granularity")")" \
	"NPWG from physical_block_size (the flash page), NPDG from discard_granularity"
if kernel_at_least 6.17; then
	is "$(idf id-ns dlfeat)" 9 \
		"6.17+: DLFEAT 0x9 (write zeroes deallocates, deallocated reads zeroes): ftlblk advertises write zeroes with unmap"
else
	is "$(idf id-ns dlfeat)" 0 "before 6.17 nvmet reports no DLFEAT"
fi
is "$(($(idf id-ctrl oncs) & 0xc))" 12 "Identify Controller: ONCS has Dataset Management and Write Zeroes"
is "$(cat "/sys/block/$B/queue/physical_block_size")" "$(cat "$Q/physical_block_size")" \
	"the NVMe host's physical block size is ftlblk's page size (from NPWG)"

# ---- data through the namespace ---------------------------------------
echo 1 >"$TR/events/ftlblk/ftlblk_request/enable"
dd if=/dev/urandom of=/tmp/nv.ref bs=4096 count=64 2>/dev/null
# page 8: a marker to look for in the flash after the deallocate
awk 'BEGIN { s = "MARK-nvme-"; while (length(s) < 4096) s = s s;
	printf "%s", substr(s, 1, 4096) }' |
	dd of=/tmp/nv.ref bs=4096 seek=8 conv=notrunc 2>/dev/null
KEYS="host_pages_written discard_requests pages_discarded valid_pages_discarded write_zeroes_requests valid_pages"
snap "$D"
ok "64 pages written through /dev/$B" dd if=/tmp/nv.ref of="/dev/$B" bs=4096 oflag=direct
is "$(deltas "$D")" \
	"host_pages_written=64 discard_requests=0 pages_discarded=0 valid_pages_discarded=0 write_zeroes_requests=0 valid_pages=64" \
	"ftlblk programmed exactly 64 pages"
is "$(sums "$D" 0 64)" "$(ref 0 64)" "ftlblk holds them"
requests >/dev/null

# ---- Dataset Management, deallocate -----------------------------------
snap "$D"
ok "nvme dsm --ad: LBAs 64..127 (pages 8..15)" nvme dsm "/dev/$B" --ad -s 64 -b 64
is "$(deltas "$D")" \
	"host_pages_written=0 discard_requests=1 pages_discarded=8 valid_pages_discarded=8 write_zeroes_requests=0 valid_pages=-8" \
	"ftlblk: one discard of the 8 pages"
is "$(requests)" "discard:64+64: " "the request that reached ftlblk"
is "$(sums "$D" 8 8) $(sums "$B" 8 8)" "$(zeroes 8) $(zeroes 8)" \
	"pages 8..15 read zeroes through ftlblk and through the namespace"
is "$(pagegrep "/sys/kernel/debug/ftlblk/$D/flash" 4096 MARK-nvme- | wc -l)" 1 \
	"remanence=1: the deallocated marker is still in the flash image"
snap "$D"
ok "nvme dsm --ad, two ranges: LBAs 256..271 and 320..335" \
	nvme dsm "/dev/$B" --ad -s 256,320 -b 16,16
is "$(deltas "$D")" \
	"host_pages_written=0 discard_requests=2 pages_discarded=4 valid_pages_discarded=4 write_zeroes_requests=0 valid_pages=-4" \
	"ftlblk: the two ranges, 2 pages each"
is "$(requests)" "discard:256+16: discard:320+16: " "the requests that reached ftlblk"

# ---- Write Zeroes -------------------------------------------------------
snap "$D"
ok "nvme write-zeroes without DEAC: LBAs 128..191 (pages 16..23)" \
	nvme write-zeroes "/dev/$B" -s 128 -c 63
ok "nvme write-zeroes with DEAC: LBAs 192..255 (pages 24..31)" \
	nvme write-zeroes "/dev/$B" -s 192 -c 63 --deac
is "$(requests)" "write-zeroes:128+64:unmap write-zeroes:192+64:unmap " \
	"nvmet's backend sends no REQ_NOUNMAP, DEAC or not: ftlblk deallocates"
is "$(deltas "$D")" \
	"host_pages_written=0 discard_requests=0 pages_discarded=0 valid_pages_discarded=0 write_zeroes_requests=2 valid_pages=-16" \
	"ftlblk: 2 write-zeroes, 16 pages unmapped, none programmed"
is "$(sums "$B" 16 16)" "$(zeroes 16)" "pages 16..31 read zeroes through the namespace"
is "$(sums "$B" 0 8)$(sums "$B" 36 4)$(sums "$B" 42 22)" "$(ref 0 8)$(ref 36 4)$(ref 42 22)" \
	"every page not deallocated or zeroed keeps its data"
is "$(nvme disconnect -n "$NQN")" "NQN:$NQN disconnected 1 controller(s)" \
	"nvme disconnect: one controller"
nvmet_down

# ---- a device without deallocate ----------------------------------------
D0=$(mkdev nv0 size=16 pages_per_block=16 discard=0)
B=$(nvmet_up "$D0")
ok "discard=0 device exported and connected: /dev/$B" test -b "/dev/$B"
is "$(idf id-ns dlfeat)" 0 "discard=0: DLFEAT 0 (no write zeroes with unmap to report)"
dd if=/dev/urandom of=/tmp/nv.ref bs=4096 count=16 2>/dev/null
dd if=/tmp/nv.ref of="/dev/$B" bs=4096 oflag=direct 2>/dev/null
KEYS="discard_requests pages_discarded valid_pages"
snap "$D0"
nvme dsm "/dev/$B" --ad -s 0 -b 64 >/dev/null 2>&1
is "$(deltas "$D0") $(sums "$D0" 0 16)" \
	"discard_requests=0 pages_discarded=0 valid_pages=0 $(ref 0 16)" \
	"discard=0: DSM deallocate reaches nothing, the data stays"
check_dmesg
done_testing
