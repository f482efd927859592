#!/bin/sh
# Loading ftlblk: the default device, its queue limits and statistics files,
# a second device of another geometry through configfs, power off/on and
# rmdir, nr_devices=0, parameters in sysfs and their modinfo descriptions.
# shellcheck source=lib.sh
. /tests/lib.sh
need_module ftlblk
plan 91


# Every statistics file the documentation lists, in its order.
STATS="host_pages_written host_pages_read nand_pages_written waf
gc_relocations gc_runs wl_relocations wl_runs erases erase_min erase_max
erase_mean discard_requests discard_ranges discard_sectors pages_discarded
valid_pages_discarded sectors_zeroed write_zeroes_requests flush_requests
unmapped_reads valid_pages free_blocks data_bytes pool_bytes metadata_bytes
logical_pages physical_blocks spare_blocks pages_per_block gc_policy
reset_stats mem_limit_rejections badblocks program_failures erase_failures
bad_blocks read_only host_busy_ns gc_busy_ns erase_busy_ns channel_busy_ns
requests_timed latency_ns_total timing channels dies_per_channel read_us
program_us erase_us channel_mbps power_cuts cache_writebacks
pages_lost_at_power_cut cached_pages write_cache cache_mib power_cut
power_cut_mode timeouts nomem_writes flushes_failed_after_cut shards stat
secure_erase_requests secure_erase_blocks secure_erase_relocations
secure_erase_pages_left pages_stale remanence secure_erase placement
write_streams class_stats atomic_write_max_kib atomic_writes
atomic_writes_lost_at_power_cut"
# Every configfs attribute of a device, as the features file must list them.
ATTRS="size blocksize page_size pages_per_block op_percent gc_policy
wl_threshold gc_low_blocks gc_high_blocks discard max_discard_segments
max_discard_sectors submit_queues poll_queues hw_queue_depth write_cache mem_limit_mib
program_fail_ppm erase_fail_ppm fault_seed endurance timing channels
dies_per_channel read_us program_us erase_us channel_mbps badblocks power index
cache_mib power_cut power_cut_mode shards remanence secure_erase placement
write_streams atomic_write_max_kib"
PARAMS="nr_devices size blocksize page_size pages_per_block op_percent
gc_policy wl_threshold gc_low_blocks gc_high_blocks discard
max_discard_segments max_discard_sectors submit_queues poll_queues hw_queue_depth
write_cache mem_limit_mib program_fail_ppm erase_fail_ppm fault_seed endurance
timing channels dies_per_channel read_us program_us erase_us channel_mbps
cache_mib power_cut_mode shards remanence secure_erase placement
write_streams atomic_write_max_kib"

# The words of a list, sorted, on one line.
# shellcheck disable=SC2086 # split on purpose
sorted() { printf '%s\n' $1 | sort | tr '\n' ' '; }
q() { sysfs_read "/sys/block/$1/queue/$2"; }

# Leave the VM clean for the next test even if this one stops early.
cleanup() {
	for n in geo p; do [ -d "$CFS/$n" ] && rmdir "$CFS/$n"; done
	rm -f /tmp/geo.dat /tmp/geo.rd
	[ -d /sys/module/ftlblk ] && modprobe -r ftlblk
}
trap cleanup EXIT

# ---- the default device ------------------------------------------------
ok "modprobe ftlblk (defaults)" modprobe ftlblk
ok "/dev/ftlblk0 is a block device" test -b /dev/ftlblk0
is "$(blockdev --getsize64 /dev/ftlblk0 2>&1)" $((256 << 20)) "ftlblk0 is 256 MiB"
is "$(q ftlblk0 discard_granularity)" 4096 "discard_granularity 4096 (flash page)"
dmb=$(q ftlblk0 discard_max_bytes)
ok "discard_max_bytes > 0 (got $dmb)" test "${dmb:-0}" -gt 0
is "$(q ftlblk0 max_discard_segments)" 64 "max_discard_segments 64"
is "$(q ftlblk0 physical_block_size)" 4096 "physical_block_size 4096"
is "$(q ftlblk0 logical_block_size)" 512 "logical_block_size 512"
is "$(q ftlblk0 minimum_io_size)" 4096 "minimum_io_size 4096 (one flash page)"
is "$(q ftlblk0 rotational)" 0 "rotational 0"
is "$(q ftlblk0 write_cache)" "write through" "no volatile write cache by default"
wzb=$(q ftlblk0 write_zeroes_max_bytes)
ok "write_zeroes_max_bytes > 0 (got $wzb)" test "${wzb:-0}" -gt 0
dmb=$(q ftlblk0 discard_max_hw_bytes)
# A split at a limit inside a flash page would rewrite that page twice.
is "$((wzb % 4096)) $((dmb % 4096))" "0 0" \
	"write_zeroes_max_bytes ($wzb) and discard_max_hw_bytes ($dmb): whole 4 KiB pages"
is "$(sysfs_read /sys/block/ftlblk0/mq/0/nr_tags)" 64 "hw_queue_depth 64 tags"
ncpu=$(grep -c '^processor' /proc/cpuinfo)
is "$(ls /sys/block/ftlblk0/mq | wc -l)" "$ncpu" "one hardware queue per CPU ($ncpu)"
is "$(sed 's/.*\[\(.*\)\].*/\1/' /sys/block/ftlblk0/queue/scheduler)" none \
	"no I/O scheduler by default"
is "$(q ftlblk0 max_hw_sectors_kb)" 1024 "max_hw_sectors_kb 1024"
is "$(q ftlblk0 optimal_io_size)" 0 "optimal_io_size 0 (none: not an erase block, which mkfs would take for a stripe)"

is "$(sorted "$(ls /sys/block/ftlblk0/ftl)")" "$(sorted "$STATS")" \
	"ftl/ holds exactly the documented statistics files"
missing=
for f in $STATS; do
	# reset_stats is write-only, badblocks lists nothing yet
	case $f in reset_stats | badblocks) continue ;; esac
	[ -n "$(st ftlblk0 "$f")" ] || missing="$missing $f"
done
is "$missing" "" "every statistics file but reset_stats and badblocks reads a value"
is "$(stat -c %a /sys/block/ftlblk0/ftl/reset_stats)" 200 "reset_stats is write-only"

is "$(st ftlblk0 logical_pages)" 65536 "logical_pages 65536 (256 MiB / 4 KiB)"
is "$(st ftlblk0 pages_per_block)" 256 "pages_per_block 256"
is "$(st ftlblk0 spare_blocks)" 18 "spare_blocks ceil(65536*7/100/256) = 18"
is "$(st ftlblk0 physical_blocks)" 274 "physical_blocks 256 + 18"
is "$(st ftlblk0 free_blocks)" "$(st ftlblk0 physical_blocks)" "free_blocks = physical_blocks"
is "$(st ftlblk0 valid_pages)" 0 "valid_pages 0"
is "$(st ftlblk0 data_bytes)" 0 "data_bytes 0"
md=$(st ftlblk0 metadata_bytes)
# l2p (4 B per logical page) + page table and reverse map (4 B + 4 B per
# physical page, the reverse map in the core, where GC reads it in block
# order), + about 50 B per erase block.
ok "metadata_bytes ($md) >= maps of 65536 + 2 x 70144 pages" test "${md:-0}" -ge $((65536 * 4 + 70144 * 8))
ok "metadata_bytes ($md) <= 0.32 % of 256 MiB" test "${md:-0}" -le $((256 * 1048576 * 32 / 10000))
is "$(st ftlblk0 gc_policy)" greedy "gc_policy greedy"
zero=
for f in host_pages_written nand_pages_written gc_relocations gc_runs \
	wl_relocations wl_runs erases erase_min erase_max discard_requests \
	discard_ranges discard_sectors pages_discarded valid_pages_discarded \
	sectors_zeroed write_zeroes_requests; do
	[ "$(st ftlblk0 "$f")" = 0 ] || zero="$zero $f=$(st ftlblk0 "$f")"
done
is "$zero" "" "write, GC, erase and discard counters start at 0"
is "$(st ftlblk0 waf) $(st ftlblk0 erase_mean)" "0.000 0.000" "waf and erase_mean 0.000"

# A first write shows up in the counters; reset_stats clears counters only.
ok "write 1 MiB at 1 MiB" dd if=/dev/urandom of=/dev/ftlblk0 bs=64k count=16 seek=16 oflag=direct
is "$(st ftlblk0 host_pages_written) $(st ftlblk0 valid_pages) $(st ftlblk0 data_bytes)" \
	"256 256 1048576" "1 MiB written: 256 host pages, 256 valid pages, 1 MiB of data"
ok "reset_stats" sh -c 'echo 1 > /sys/block/ftlblk0/ftl/reset_stats'
is "$(st ftlblk0 host_pages_written) $(st ftlblk0 nand_pages_written) $(st ftlblk0 valid_pages) $(st ftlblk0 data_bytes)" \
	"0 0 256 1048576" "reset_stats zeroes counters, keeps valid_pages and data_bytes"

# ---- configfs: features, defaults, a second device ---------------------
ok "configfs group $CFS exists" test -d "$CFS"
is "$(sorted "$(tr ',' ' ' < $CFS/features)")" "$(sorted "$ATTRS")" \
	"features lists every device attribute"
ok "mkdir $CFS/geo" mkdir $CFS/geo
is "$(sorted "$(ls $CFS/geo)")" "$(sorted "$ATTRS")" "the device directory has every listed attribute"
got=
for a in size blocksize page_size pages_per_block op_percent gc_policy \
	wl_threshold gc_low_blocks gc_high_blocks discard max_discard_segments \
	max_discard_sectors submit_queues hw_queue_depth write_cache power index; do
	got="$got $a=$(cat $CFS/geo/$a)"
done
is "$got" " size=256 blocksize=512 page_size=4096 pages_per_block=256 op_percent=7 gc_policy=greedy wl_threshold=64 gc_low_blocks=0 gc_high_blocks=0 discard=1 max_discard_segments=64 max_discard_sectors=0 submit_queues=0 hw_queue_depth=64 write_cache=0 power=0 index=-1" \
	"a new directory starts from the module defaults, powered off"

bad=
for kv in size=64 blocksize=4096 page_size=8192 pages_per_block=64 \
	op_percent=20 max_discard_segments=1 max_discard_sectors=2048 \
	submit_queues=2 gc_policy=fifo hw_queue_depth=32 wl_threshold=10 \
	gc_low_blocks=3 gc_high_blocks=4 write_cache=1; do
	r=$(errno-write "$CFS/geo/${kv%%=*}" "${kv#*=}")
	[ "$r" = ok ] || bad="$bad ${kv}:$r"
	[ "$(cat "$CFS/geo/${kv%%=*}")" = "${kv#*=}" ] || bad="$bad ${kv}:readback=$(cat "$CFS/geo/${kv%%=*}")"
done
is "$bad" "" "set size 64, blocksize 4096, page_size 8192, ... and read them back"
is "$(errno-write $CFS/geo/power 1)" ok "power 1"
is "$(cat $CFS/geo/power)" 1 "power reads 1"
n=$(cat $CFS/geo/index)
is "$n" 1 "index is 1 (ftlblk0 is taken)"
d=ftlblk$n
ok "/dev/$d is a block device" test -b "/dev/$d"
is "$(blockdev --getsize64 "/dev/$d" 2>&1)" $((64 << 20)) "$d is 64 MiB"
is "$(q "$d" logical_block_size)" 4096 "$d logical_block_size 4096"
is "$(q "$d" physical_block_size)" 8192 "$d physical_block_size 8192 (page_size)"
is "$(q "$d" discard_granularity)" 8192 "$d discard_granularity 8192"
is "$(q "$d" discard_max_bytes)" 1048576 "$d discard_max_bytes 1048576 (2048 sectors)"
is "$(q "$d" max_discard_segments)" 1 "$d max_discard_segments 1"
is "$(q "$d" write_cache)" "write back" "$d write_cache 1: a volatile write cache"
is "$(ls /sys/block/"$d"/mq | tr '\n' ' ')" "0 1 " "$d has 2 hardware queues"
is "$(sysfs_read /sys/block/"$d"/mq/0/nr_tags)" 32 "$d hw_queue_depth 32"
is "$(st "$d" logical_pages) $(st "$d" pages_per_block) $(st "$d" spare_blocks) $(st "$d" physical_blocks) $(st "$d" free_blocks)" \
	"8192 64 26 154 154" "$d geometry: 8192 pages, 64 per block, ceil(8192*20/6400) = 26 spare, 154 blocks, all free"
is "$(st "$d" gc_policy)" fifo "$d gc_policy fifo"
ok "$d reads and writes" sh -c "dd if=/dev/urandom of=/tmp/geo.dat bs=64k count=4 2>/dev/null &&
	dd if=/tmp/geo.dat of=/dev/$d bs=64k oflag=direct conv=fsync 2>/dev/null &&
	dd if=/dev/$d of=/tmp/geo.rd bs=64k count=4 iflag=direct 2>/dev/null && cmp /tmp/geo.dat /tmp/geo.rd"
is "$(st "$d" valid_pages)" 32 "$d: 256 KiB written and flushed (write cache) = 32 valid 8 KiB pages"
is "$(st ftlblk0 valid_pages)" 256 "ftlblk0 untouched by I/O to $d"

is "$(errno-write $CFS/geo/power 0)" ok "power 0"
ok "/dev/$d is gone" test ! -e "/dev/$d"
ok "/sys/block/$d is gone" test ! -e "/sys/block/$d"
is "$(cat $CFS/geo/power) $(cat $CFS/geo/index)" "0 -1" "power 0, index -1"
is "$(cat $CFS/geo/size)" 64 "the configuration survives power off"
is "$(errno-write $CFS/geo/power 1)" ok "power 1 again"
n=$(cat $CFS/geo/index)
d=ftlblk$n
ok "/dev/$d is back" test -b "/dev/$d"
is "$(st "$d" valid_pages) $(st "$d" data_bytes)" "0 0" "a re-powered device starts empty"
ok "rmdir $CFS/geo" rmdir $CFS/geo
ok "rmdir removed /dev/$d" test ! -e "/dev/$d"
ok "rmdir removed /sys/block/$d" test ! -e "/sys/block/$d"
ok "modprobe -r ftlblk" modprobe -r ftlblk
ok "module is gone" test ! -e /sys/module/ftlblk
ok "/dev/ftlblk0 is gone" test ! -e /dev/ftlblk0

# ---- nr_devices=0 ------------------------------------------------------
ok "modprobe ftlblk nr_devices=0" modprobe ftlblk nr_devices=0
is "$(ls -d /dev/ftlblk* /sys/block/ftlblk* 2>/dev/null)" "" "no device created"
ok "configfs group registered" test -r $CFS/features
is "$(sysfs_read /sys/module/ftlblk/parameters/nr_devices)" 0 "parameter nr_devices reads 0"
ok "modprobe -r ftlblk" modprobe -r ftlblk

# ---- parameters shape the load-time devices and configfs defaults ------
ok "modprobe ftlblk nr_devices=2 size=48 page_size=8192 pages_per_block=128 op_percent=10 gc_policy=cost-benefit discard=0 blocksize=4096" \
	modprobe ftlblk nr_devices=2 size=48 page_size=8192 pages_per_block=128 \
	op_percent=10 gc_policy=cost-benefit discard=0 blocksize=4096
got=
for d in ftlblk0 ftlblk1; do
	got="$got $d:$(blockdev --getsize64 /dev/$d 2>&1),$(q $d logical_block_size),$(q $d physical_block_size),$(q $d discard_max_bytes),$(st $d gc_policy),$(st $d logical_pages),$(st $d spare_blocks)"
done
# 48 MiB / 8 KiB = 6144 pages; spare = ceil(6144 * 10 / (100 * 128)) = 5
is "$got" " ftlblk0:50331648,4096,8192,0,cost-benefit,6144,5 ftlblk1:50331648,4096,8192,0,cost-benefit,6144,5" \
	"two 48 MiB devices with 8 KiB pages, cost-benefit, discard off"
ok "no third device" test ! -e /dev/ftlblk2
missing=
for p in $PARAMS; do
	[ -r /sys/module/ftlblk/parameters/"$p" ] || missing="$missing $p"
done
is "$missing" "" "every module parameter is in /sys/module/ftlblk/parameters"
got=
for p in nr_devices size page_size pages_per_block op_percent gc_policy discard blocksize wl_threshold; do
	got="$got $p=$(sysfs_read /sys/module/ftlblk/parameters/$p)"
done
is "$got" " nr_devices=2 size=48 page_size=8192 pages_per_block=128 op_percent=10 gc_policy=cost-benefit discard=0 blocksize=4096 wl_threshold=64" \
	"parameters read back as given"
ok "mkdir $CFS/p" mkdir $CFS/p
is "$(cat $CFS/p/size) $(cat $CFS/p/page_size) $(cat $CFS/p/gc_policy) $(cat $CFS/p/discard)" \
	"48 8192 cost-benefit 0" "configfs devices default to the module parameters"
ok "rmdir $CFS/p" rmdir $CFS/p
ok "modprobe -r ftlblk" modprobe -r ftlblk

undescribed=
for p in $PARAMS; do
	line=$(modinfo -F parm ftlblk | grep "^$p:")
	desc=${line#"$p":}
	desc=${desc% (*)}
	# a real sentence, not just the type
	[ "${#desc}" -ge 15 ] || undescribed="$undescribed $p"
done
is "$undescribed" "" "modinfo describes every parameter"

check_dmesg
done_testing
