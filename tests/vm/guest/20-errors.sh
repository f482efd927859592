#!/bin/sh
# Refused operations: every invalid configfs value is EINVAL with exactly one
# kernel log line naming the attribute and what is allowed; impossible
# geometries fail at power on; attributes of a powered device are EBUSY;
# power 0 / modprobe -r of an open or mounted device fail and leave it
# working with its data intact; invalid module parameters refuse the load.
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
need_cmd errno-write md5sum mkfs.vfat
plan 187

# Kernel log lines since the last mark.
mark() { _dm=$(dmesg | wc -l); }
# The kernel's own lines that TCG's slow clock provokes at any moment (the
# clocksource watchdog) are not ftlblk's: left out of the count.
newlines() { dmesg | tail -n +$((_dm + 1)) | grep -v '] clocksource: '; }
sum() { md5sum < "$1" | cut -d' ' -f1; }

# refuse DIR ATTR VALUE HELP: writing VALUE fails with EINVAL, logs exactly
# one line "ftlblk: NAME: invalid ATTR ...: allowed ...HELP..." and leaves
# the attribute as it was.
refuse() {
	_before=$(cat "$1/$2")
	mark
	_r=$(errno-write "$1/$2" "$3")
	_l=$(newlines)
	_n=$(printf '%s' "$_l" | grep -c '')
	_after=$(cat "$1/$2")
	_m=no
	case $_l in
	*"ftlblk: ${1##*/}: invalid $2 "*": allowed "*"$4"*) _m=yes ;;
	esac
	if is "$_r lines=$_n names-attr-and-range=$_m unchanged=$([ "$_after" = "$_before" ] && echo yes || echo "no:$_after")" \
		"EINVAL lines=1 names-attr-and-range=yes unchanged=yes" \
		"$2 '$3': EINVAL, one log line with the allowed $4"; then :; else
		printf '%s\n' "$_l" | sed 's/^/#   log: /'
	fi
}

# Leave the VM clean for the next test even if this one stops early.
cleanup() {
	exec 3<&-
	grep -q " /tmp/e-mnt " /proc/mounts && umount /tmp/e-mnt
	[ -d "$CFS/e" ] && rmdir "$CFS/e"
	rm -f /tmp/e0.ref /tmp/e1.ref
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

# ---- invalid module parameters: the load fails, saying which -----------
# param_fail DESC WORD PARAM...: modprobe fails, exactly one new log line,
# containing WORD, and nothing stays loaded.
param_fail() {
	_d=$1 _w=$2
	shift 2
	mark
	modprobe ftlblk "$@" >/dev/null 2>&1
	_s=$?
	_l=$(newlines | grep -v 'taints kernel\|module verification failed')
	_n=$(printf '%s' "$_l" | grep -c '')
	_m=no
	case $_l in *"$_w"*) _m=yes ;; esac
	if is "failed=$([ $_s != 0 ] && echo yes || echo no) lines=$_n names=$_m loaded=$([ -e /sys/module/ftlblk ] && echo yes || echo no)" \
		"failed=yes lines=1 names=yes loaded=no" "modprobe ftlblk $*: $_d"; then :; else
		printf '%s\n' "$_l" | sed 's/^/#   log: /'
		[ -e /sys/module/ftlblk ] && modprobe -r ftlblk
	fi
}
param_fail "op_percent out of range" "invalid op_percent 0: allowed 1..100" op_percent=0
param_fail "unknown gc_policy" "invalid gc_policy 'bogus': allowed greedy, fifo or cost-benefit" gc_policy=bogus
param_fail "page_size not a power of two" "invalid page_size 5000: allowed 4096, 8192 or 16384" page_size=5000
param_fail "blocksize 1024" "invalid blocksize 1024: allowed 512 or 4096" blocksize=1024
param_fail "size 0" "invalid size 0: allowed 1..65536" size=0
param_fail "too many devices" "invalid nr_devices 65" nr_devices=65
param_fail "impossible geometry" "spare" size=1 pages_per_block=4096 op_percent=1

# param_exact LINE PARAM...: modprobe fails with EINVAL ("Invalid argument")
# and the kernel log gets exactly LINE (timestamp stripped), nothing else.
param_exact() {
	_w=$1
	shift
	mark
	_e=$(modprobe ftlblk "$@" 2>&1)
	_s=$?
	_l=$(newlines | grep -v 'taints kernel\|module verification failed' | sed 's/^\[[^]]*\] *//')
	_inval=no
	case $_e in *"Invalid argument"*) _inval=yes ;; esac
	if is "failed=$([ $_s != 0 ] && echo yes || echo no) EINVAL=$_inval loaded=$([ -e /sys/module/ftlblk ] && echo yes || echo no) log=$_l" \
		"failed=yes EINVAL=yes loaded=no log=$_w" "modprobe ftlblk $*: refused, logs '$_w'"; then :; else
		diag "modprobe said: $_e"
		[ -e /sys/module/ftlblk ] && modprobe -r ftlblk
	fi
}
# Every parameter, each end of its range (the ones above only by a word).
P="ftlblk: module parameter: invalid"
param_exact "$P nr_devices 65: allowed 0..64" nr_devices=65
param_exact "$P size 0: allowed 1..65536 (MiB)" size=0
param_exact "$P size 65537: allowed 1..65536 (MiB)" size=65537
param_exact "$P blocksize 1024: allowed 512 or 4096 (bytes)" blocksize=1024
param_exact "$P blocksize 0: allowed 512 or 4096 (bytes)" blocksize=0
param_exact "$P page_size 2048: allowed 4096, 8192 or 16384 (bytes)" page_size=2048
param_exact "$P page_size 32768: allowed 4096, 8192 or 16384 (bytes)" page_size=32768
param_exact "$P pages_per_block 1: allowed 2..4096 (flash pages per erase block)" pages_per_block=1
param_exact "$P pages_per_block 4097: allowed 2..4096 (flash pages per erase block)" pages_per_block=4097
param_exact "$P op_percent 0: allowed 1..100 (percent of the logical capacity)" op_percent=0
param_exact "$P op_percent 101: allowed 1..100 (percent of the logical capacity)" op_percent=101
param_exact "$P gc_policy 'bogus': allowed greedy, fifo or cost-benefit" gc_policy=bogus
param_exact "$P wl_threshold 1000001: allowed 0..1000000 (erase-count spread, 0 = off)" wl_threshold=1000001
param_exact "$P gc_low_blocks 1: allowed 0 (default 2) or 2..1024 (free blocks)" gc_low_blocks=1
param_exact "$P gc_low_blocks 1025: allowed 0 (default 2) or 2..1024 (free blocks)" gc_low_blocks=1025
param_exact "$P gc_high_blocks 1: allowed 0 (= gc_low_blocks) or 2..1024 (free blocks)" gc_high_blocks=1
param_exact "$P gc_high_blocks 1025: allowed 0 (= gc_low_blocks) or 2..1024 (free blocks)" gc_high_blocks=1025
param_exact "$P geometry: GC watermarks must satisfy 2 <= low <= high" gc_low_blocks=5 gc_high_blocks=3
param_exact "$P discard 2: allowed 0 or 1" discard=2
param_exact "$P max_discard_segments 0: allowed 1..256 (ranges per request)" max_discard_segments=0
param_exact "$P max_discard_segments 257: allowed 1..256 (ranges per request)" max_discard_segments=257
param_exact "$P max_discard_sectors 8388608: allowed 0 (unlimited) or 1..8388607 (512-byte sectors)" max_discard_sectors=8388608
param_exact "$P submit_queues 257: allowed 0 (one per CPU) or 1..256 (hardware queues)" submit_queues=257
param_exact "$P hw_queue_depth 0: allowed 1..4096 (requests per queue)" hw_queue_depth=0
param_exact "$P hw_queue_depth 4097: allowed 1..4096 (requests per queue)" hw_queue_depth=4097
param_exact "$P write_cache 2: allowed 0 or 1" write_cache=2
param_exact "$P remanence 2: allowed 0 or 1" remanence=2
param_exact "$P secure_erase 2: allowed 0 or 1" secure_erase=2
param_exact "$P write_streams 17: allowed 0..16 (write streams, 0 unless placement=stream)" write_streams=17
param_exact "ftlblk: module parameter: invalid placement 'zoned': allowed none, hint (Linux 6.9+) or stream (Linux 6.16+)" placement=zoned
param_exact "$P cache_mib 65537: allowed 0 (as large as the device) or 1..65536 (MiB)" cache_mib=65537
param_exact "ftlblk: module parameter: invalid power_cut_mode 'sometimes': allowed all or random" power_cut_mode=sometimes
param_exact "$P program_fail_ppm 100001: allowed 0..100000 (failed page programs per million)" program_fail_ppm=100001
param_exact "$P erase_fail_ppm 100001: allowed 0..100000 (failed block erases per million)" erase_fail_ppm=100001
param_exact "$P endurance 100000001: allowed 0 (unlimited) or 1..100000000 (erases a block survives)" endurance=100000001
param_exact "$P mem_limit_mib 262145: allowed 0 (no limit) or 1..262144 (MiB of data pages)" mem_limit_mib=262145
param_exact "$P timing 2: allowed 0 (RAM speed) or 1 (NAND timing model)" timing=2
param_exact "$P channels 0: allowed 1..64 (flash channels)" channels=0
param_exact "$P channels 65: allowed 1..64 (flash channels)" channels=65
param_exact "$P dies_per_channel 0: allowed 1..64 (dies on each channel)" dies_per_channel=0
param_exact "$P dies_per_channel 65: allowed 1..64 (dies on each channel)" dies_per_channel=65
param_exact "$P read_us 0: allowed 1..1000000 (microseconds, page read tR)" read_us=0
param_exact "$P program_us 1000001: allowed 1..1000000 (microseconds, page program tPROG)" program_us=1000001
param_exact "$P erase_us 0: allowed 1..1000000 (microseconds, block erase tBERS)" erase_us=0
param_exact "$P channel_mbps 100001: allowed 1..100000 (MB/s per channel)" channel_mbps=100001
param_exact "$P poll_queues 257: allowed 0..256 (polled hardware queues)" poll_queues=257
# max_discard_sectors: 0 or whole flash pages (the block layer would round
# anything else down, to 0 below one page).
M8="allowed 0 (unlimited) or a multiple of 8 (page_size 4096 in 512-byte sectors)"
param_exact "$P max_discard_sectors 1: $M8" max_discard_sectors=1
param_exact "$P max_discard_sectors 7: $M8" max_discard_sectors=7
param_exact "$P max_discard_sectors 8: allowed 0 (unlimited) or a multiple of 32 (page_size 16384 in 512-byte sectors)" \
	page_size=16384 max_discard_sectors=8
ok "modprobe ftlblk size=16 pages_per_block=64 max_discard_sectors=8" \
	modprobe ftlblk size=16 pages_per_block=64 max_discard_sectors=8
is "$(sysfs_read /sys/block/ftlblk0/queue/discard_max_bytes)" 4096 \
	"max_discard_sectors=8: discard_max_bytes 4096"
ok "modprobe -r ftlblk" modprobe -r ftlblk
# Not a number: the kernel's parameter parser refuses it before ftlblk runs.
param_exact "ftlblk: \`abc' invalid for parameter \`size'" size=abc
param_exact "ftlblk: \`-1' invalid for parameter \`hw_queue_depth'" hw_queue_depth=-1

# ---- the load-time device: open, rmmod refused, data intact ------------
ok "modprobe ftlblk nr_devices=1 size=16 pages_per_block=64" \
	modprobe ftlblk nr_devices=1 size=16 pages_per_block=64
ok "write 16 MiB of random data to ftlblk0" sh -c \
	'dd if=/dev/urandom of=/tmp/e0.ref bs=1M count=16 2>/dev/null && dd if=/tmp/e0.ref of=/dev/ftlblk0 bs=1M oflag=direct 2>/dev/null'
ref0=$(sum /tmp/e0.ref)
is "$(sum /dev/ftlblk0)" "$ref0" "ftlblk0 reads back what was written"
exec 3</dev/ftlblk0
mark
ok "modprobe -r ftlblk fails while ftlblk0 is open" sh -c '! modprobe -r ftlblk'
ok "rmmod ftlblk fails while ftlblk0 is open" sh -c '! rmmod ftlblk'
ok "module still loaded, ftlblk0 still there" test -d /sys/module/ftlblk -a -b /dev/ftlblk0
is "$(sum /dev/ftlblk0)" "$ref0" "ftlblk0 data unchanged after refused unload"
exec 3<&-

# ---- configfs: EINVAL for every bad value --------------------------------
ok "mkdir $CFS/e" mkdir $CFS/e
E=$CFS/e
ok "modprobe -r fails while a configfs device exists" sh -c '! modprobe -r ftlblk'
refuse $E size 0 "1..65536"
refuse $E size 65537 "1..65536"
refuse $E size 4294967296 "1..65536"
refuse $E size -1 "1..65536"
refuse $E size abc "1..65536"
refuse $E size 12x "1..65536"
refuse $E blocksize 1024 "512 or 4096"
refuse $E blocksize 2048 "512 or 4096"
refuse $E blocksize 256 "512 or 4096"
refuse $E blocksize 8192 "512 or 4096"
refuse $E blocksize abc "512 or 4096"
refuse $E page_size 12288 "4096, 8192 or 16384"
refuse $E page_size 2048 "4096, 8192 or 16384"
refuse $E page_size 32768 "4096, 8192 or 16384"
refuse $E page_size abc "4096, 8192 or 16384"
refuse $E pages_per_block 1 "2..4096"
refuse $E pages_per_block 4097 "2..4096"
refuse $E pages_per_block abc "2..4096"
refuse $E op_percent 0 "1..100"
refuse $E op_percent 101 "1..100"
refuse $E op_percent abc "1..100"
refuse $E gc_policy bogus "greedy, fifo or cost-benefit"
refuse $E gc_policy 1 "greedy, fifo or cost-benefit"
refuse $E wl_threshold 1000001 "0..1000000"
refuse $E wl_threshold abc "0..1000000"
refuse $E gc_low_blocks 1 "0 (default 2) or 2..1024"
refuse $E gc_high_blocks 1 "2..1024"
refuse $E gc_low_blocks 1025 "..1024"
refuse $E gc_low_blocks abc "..1024"
refuse $E gc_high_blocks 1025 "..1024"
refuse $E gc_high_blocks abc "..1024"
refuse $E discard 2 "0 or 1"
refuse $E discard abc "0 or 1"
refuse $E max_discard_segments 0 "1..256"
refuse $E max_discard_segments 257 "1..256"
refuse $E max_discard_segments abc "1..256"
refuse $E max_discard_sectors 8388608 "1..8388607"
refuse $E max_discard_sectors abc "1..8388607"
refuse $E submit_queues 257 "1..256"
refuse $E submit_queues abc "1..256"
refuse $E hw_queue_depth 0 "1..4096"
refuse $E hw_queue_depth 4097 "1..4096"
refuse $E hw_queue_depth abc "1..4096"
refuse $E write_cache 2 "0 or 1"
refuse $E write_cache abc "0 or 1"
refuse $E cache_mib 65537 "0 (as large as the device) or 1..65536"
refuse $E power_cut_mode bogus "all or random"
refuse $E program_fail_ppm 100001 "0..100000"
refuse $E program_fail_ppm abc "0..100000"
refuse $E erase_fail_ppm 100001 "0..100000"
refuse $E endurance 100000001 "1..100000000"
refuse $E fault_seed 4294967296 "0..4294967295"
refuse $E mem_limit_mib 262145 "1..262144"
refuse $E timing 2 "0 (RAM speed) or 1"
refuse $E channels 0 "1..64"
refuse $E dies_per_channel 65 "1..64"
refuse $E read_us 1000001 "1..1000000"
refuse $E program_us 0 "1..1000000"
refuse $E erase_us abc "1..1000000"
refuse $E channel_mbps 0 "1..100000"
refuse $E poll_queues 257 "0..256"
refuse $E remanence 2 "0 or 1"
refuse $E secure_erase x "0 or 1"
refuse $E placement hints "none, hint"
refuse $E write_streams 17 "0..16"
refuse $E power 2 "0 or 1"
refuse $E power abc "0 or 1"
# Whole words only: kstrtobool() would take these as 1.
refuse $E power 1junk "0 or 1"
refuse $E power yes "0 or 1"
is "$(errno-write $E/index 3)" EACCES "index is read-only"
mark
is "$(errno-write $E/power_cut 1) $(newlines | grep -c 'cannot write power_cut: device is not powered on')" \
	"ENODEV 1" "power_cut on a device that is not powered on: ENODEV, one log line"
is "$(errno-write $CFS/features x)" EACCES "features is read-only"

# The limits themselves are accepted.
bad=
for kv in size=1 size=65536 blocksize=4096 blocksize=512 page_size=16384 \
	page_size=8192 page_size=4096 pages_per_block=2 pages_per_block=4096 \
	op_percent=1 op_percent=100 gc_policy=cost-benefit gc_policy=fifo \
	gc_policy=greedy wl_threshold=0 wl_threshold=1000000 gc_low_blocks=1024 \
	gc_low_blocks=0 gc_high_blocks=1024 gc_high_blocks=0 discard=0 discard=1 \
	max_discard_segments=1 max_discard_segments=256 \
	max_discard_sectors=8388607 max_discard_sectors=0 submit_queues=256 \
	submit_queues=1 submit_queues=0 hw_queue_depth=1 hw_queue_depth=4096 write_cache=1 \
	write_cache=0 program_fail_ppm=100000 program_fail_ppm=0 erase_fail_ppm=100000 \
	erase_fail_ppm=0 endurance=100000000 endurance=0 fault_seed=4294967295 \
	fault_seed=1 mem_limit_mib=262144 mem_limit_mib=0 timing=1 timing=0 \
	channels=64 channels=1 channels=4 dies_per_channel=64 dies_per_channel=1 \
	dies_per_channel=2 read_us=1000000 read_us=1 read_us=50 \
	program_us=1000000 program_us=1 program_us=600 erase_us=1000000 \
	erase_us=1 erase_us=2000 channel_mbps=100000 channel_mbps=1 \
	channel_mbps=200 poll_queues=256 poll_queues=0 cache_mib=65536 cache_mib=0 power_cut_mode=random \
	power_cut_mode=all; do
	r=$(errno-write "$E/${kv%%=*}" "${kv#*=}")
	[ "$r" = ok ] && [ "$(cat "$E/${kv%%=*}")" = "${kv#*=}" ] || bad="$bad $kv:$r"
done
is "$bad" "" "every attribute accepts both ends of its range"

# ---- impossible geometries fail at power on ------------------------------
# geometry_fail WORD ATTR=VALUE...: power 1 is EINVAL with one log line
# containing WORD; no device appears.
geometry_fail() {
	_w=$1
	shift
	for _kv; do errno-write "$E/${_kv%%=*}" "${_kv#*=}" >/dev/null; done
	_devs=$(ls -d /sys/block/ftlblk* 2>/dev/null)
	mark
	_r=$(errno-write $E/power 1)
	_l=$(newlines)
	_n=$(printf '%s' "$_l" | grep -c '')
	_m=no
	case $_l in *"ftlblk: e: invalid geometry: "*"$_w"*) _m=yes ;; esac
	if is "$_r lines=$_n says-why=$_m power=$(cat $E/power) index=$(cat $E/index) new-disks=$([ "$(ls -d /sys/block/ftlblk* 2>/dev/null)" = "$_devs" ] && echo no || echo yes)" \
		"EINVAL lines=1 says-why=yes power=0 index=-1 new-disks=no" \
		"power 1 with $*: EINVAL, '$_w'"; then :; else
		printf '%s\n' "$_l" | sed 's/^/#   log: /'
	fi
}
geometry_fail spare size=1 pages_per_block=4096 op_percent=1
geometry_fail spare size=16 pages_per_block=64 op_percent=1
geometry_fail watermarks op_percent=50 gc_low_blocks=5 gc_high_blocks=3
geometry_fail spare gc_low_blocks=2 gc_high_blocks=1024
# 16 MiB in 64-page blocks, 7 %: 5 spare blocks, enough for GC (4) but not
# with the 2 blocks it keeps in reserve when programs can fail.
geometry_fail spare size=16 pages_per_block=64 op_percent=7 gc_high_blocks=0 \
	program_fail_ppm=1
errno-write $E/program_fail_ppm 0 >/dev/null

# max_discard_sectors must be whole flash pages too, checked at power on.
# mds VALUE PAGE_SIZE: set both, power 1; prints the outcome and the log.
mds() {
	errno-write $E/page_size "$2" >/dev/null
	errno-write $E/max_discard_sectors "$1" >/dev/null
	mark
	_r=$(errno-write $E/power 1)
	echo "$_r power=$(cat $E/power) log=$(newlines | sed 's/^\[[^]]*\] *//')"
}
for kv in size=16 pages_per_block=64 op_percent=7 gc_low_blocks=0 gc_high_blocks=0; do
	errno-write "$E/${kv%%=*}" "${kv#*=}" >/dev/null
done
is "$(mds 1 4096)" "EINVAL power=0 log=ftlblk: e: invalid max_discard_sectors 1: $M8" \
	"power 1 with max_discard_sectors 1: EINVAL, one log line"
is "$(mds 7 4096)" "EINVAL power=0 log=ftlblk: e: invalid max_discard_sectors 7: $M8" \
	"power 1 with max_discard_sectors 7: EINVAL, one log line"
is "$(mds 8 16384)" "EINVAL power=0 log=ftlblk: e: invalid max_discard_sectors 8: allowed 0 (unlimited) or a multiple of 32 (page_size 16384 in 512-byte sectors)" \
	"power 1 with max_discard_sectors 8 and 16 KiB pages: EINVAL, one log line"
is "$(mds 8 4096 | cut -d' ' -f1-2)" "ok power=1" "power 1 with max_discard_sectors 8 and 4 KiB pages"
is "$(sysfs_read /sys/block/ftlblk"$(cat $E/index)"/queue/discard_max_bytes)" 4096 \
	"discard_max_bytes 4096"
is "$(errno-write $E/power 0)" ok "power 0"

# ---- a powered device: every attribute is EBUSY -------------------------
for kv in size=16 blocksize=512 page_size=4096 pages_per_block=64 \
	op_percent=7 gc_policy=greedy wl_threshold=64 gc_low_blocks=0 \
	gc_high_blocks=0 discard=1 max_discard_segments=64 max_discard_sectors=0 \
	submit_queues=1 hw_queue_depth=64; do
	errno-write "$E/${kv%%=*}" "${kv#*=}" >/dev/null
done
is "$(errno-write $E/power 1)" ok "power 1 with a valid geometry"
d=ftlblk$(cat $E/index)
ok "/dev/$d exists" test -b /dev/"$d"
ok "write 16 MiB of random data to $d" sh -c \
	"dd if=/dev/urandom of=/tmp/e1.ref bs=1M count=16 2>/dev/null && dd if=/tmp/e1.ref of=/dev/$d bs=1M oflag=direct 2>/dev/null"
ref1=$(sum /tmp/e1.ref)
is "$(sum /dev/"$d")" "$ref1" "$d reads back what was written"
bad=
for kv in size=32 blocksize=4096 page_size=8192 pages_per_block=128 \
	op_percent=20 gc_policy=fifo wl_threshold=5 gc_low_blocks=3 \
	gc_high_blocks=4 discard=0 max_discard_segments=1 \
	max_discard_sectors=8 submit_queues=2 hw_queue_depth=8 write_cache=1 \
	program_fail_ppm=5 erase_fail_ppm=5 endurance=5 fault_seed=5 \
	mem_limit_mib=5 timing=1 channels=8 dies_per_channel=4 read_us=60 \
	program_us=700 erase_us=3000 channel_mbps=400 size=16; do
	a=${kv%%=*} before=$(cat "$E/$a")
	mark
	r=$(errno-write "$E/$a" "${kv#*=}")
	l=$(newlines)
	case $l in *"ftlblk: e: cannot change $a while powered on"*) ;; *) r="$r(log:$l)" ;; esac
	[ "$r" = EBUSY ] && [ "$(cat "$E/$a")" = "$before" ] || bad="$bad $kv:$r"
done
is "$bad" "" "every attribute of a powered device: EBUSY, logged, unchanged"
is "$(errno-write $E/power 1)" ok "power 1 while powered is a no-op"
is "$(cat $E/index)" "${d#ftlblk}" "same device after power 1 again"
is "$(sum /dev/"$d")" "$ref1" "$d data unchanged after the refused writes"

# ---- power 0 refused while open, device keeps working -------------------
exec 3</dev/"$d"
mark
is "$(errno-write $E/power 0)" EBUSY "power 0 while /dev/$d is open: EBUSY"
case $(newlines) in
*"ftlblk: $d: cannot remove: device is open or mounted"*) pass "logged: cannot remove, device is open" ;;
*) fail "logged: cannot remove, device is open" ;;
esac
is "$(cat $E/power)" 1 "power still reads 1"
ok "/dev/$d still exists" test -b /dev/"$d"
is "$(sum /dev/"$d")" "$ref1" "$d data unchanged after refused power 0"
ok "$d still takes writes" sh -c \
	"dd if=/dev/urandom of=/tmp/e1.ref bs=1M count=2 seek=3 conv=notrunc 2>/dev/null &&
	 dd if=/tmp/e1.ref of=/dev/$d bs=1M count=2 skip=3 seek=3 oflag=direct 2>/dev/null"
ref1=$(sum /tmp/e1.ref)
is "$(sum /dev/"$d")" "$ref1" "$d reads back the new data"
exec 3<&-

# ---- power 0 refused while mounted -------------------------------------
modprobe -q vfat; modprobe -q nls_cp437; modprobe -q nls_utf8
ok "mkfs.vfat /dev/$d" mkfs.vfat /dev/"$d"
mkdir -p /tmp/e-mnt
ok "mount /dev/$d" mount -t vfat -o iocharset=utf8 /dev/"$d" /tmp/e-mnt
ok "write a file" sh -c 'dd if=/dev/urandom of=/tmp/e-mnt/f bs=1k count=300 2>/dev/null && sync'
fsum=$(sum /tmp/e-mnt/f)
is "$(errno-write $E/power 0)" EBUSY "power 0 while mounted: EBUSY"
ok "still mounted" grep -q "^/dev/$d /tmp/e-mnt " /proc/mounts
ok "umount and mount again" sh -c "umount /tmp/e-mnt && mount -t vfat -o iocharset=utf8 /dev/$d /tmp/e-mnt"
is "$(sum /tmp/e-mnt/f)" "$fsum" "the file is intact"
ok "umount" umount /tmp/e-mnt
is "$(errno-write $E/power 0)" ok "power 0 once unmounted"
ok "/dev/$d removed" test ! -e /dev/"$d"

# ---- rmdir removes a powered device even while it is open --------------
is "$(errno-write $E/power 1)" ok "power 1"
d=ftlblk$(cat $E/index)
exec 3</dev/"$d"
ok "rmdir while /dev/$d is open" rmdir $E
ok "/dev/$d and /sys/block/$d are gone" test ! -e /dev/"$d" -a ! -e /sys/block/"$d"
exec 3<&-
ok "a new device can be created afterwards" sh -c "mkdir $E && echo 16 > $E/size && echo 64 > $E/pages_per_block && echo 1 > $E/power && test -b /dev/ftlblk\$(cat $E/index) && rmdir $E"
is "$(sum /dev/ftlblk0)" "$ref0" "ftlblk0 data unchanged through all of it"
ok "modprobe -r ftlblk" modprobe -r ftlblk
ok "module unloaded" test ! -e /sys/module/ftlblk
rm -f /tmp/e0.ref /tmp/e1.ref

check_dmesg
done_testing
