#!/bin/sh
# On a kernel with kmemleak (scripts/check-debug builds one): create, use,
# discard and remove ftlblk devices, unload the module, and check kmemleak
# finds no unreferenced object allocated by ftlblk. Skipped on Debian's
# kernel, which has no kmemleak.
. /tests/lib.sh

KML=/sys/kernel/debug/kmemleak
[ -w $KML ] || skip_all "kernel has no kmemleak"
plan 6

echo clear >$KML
ok "modprobe ftlblk size=64" modprobe ftlblk size=64
ok "write, discard, overwrite with GC" sh -c '
	fio --eta=never --name=w --filename=/dev/ftlblk0 --rw=randwrite --bs=4k \
		--size=64M --io_size=192M --direct=1 --output=/dev/null &&
	blkdiscard -f -o 1048576 -l 4194304 /dev/ftlblk0 &&
	blkdiscard -f -o 4608 -l 1024 /dev/ftlblk0'
cfg=/sys/kernel/config/ftlblk/leak
ok "configfs device created and removed" sh -c "
	mkdir $cfg && echo 16 >$cfg/size && echo 64 >$cfg/pages_per_block &&
	echo 1 >$cfg/power &&
	dd if=/dev/zero of=/dev/ftlblk1 bs=1M count=4 oflag=direct 2>/dev/null &&
	echo 0 >$cfg/power && rmdir $cfg"
ok "modprobe -r ftlblk" modprobe -r ftlblk
# kmemleak reports an object only after it stayed unreferenced through
# two scans.
echo scan >$KML
sleep 5
echo scan >$KML
leaks=$(awk '/^unreferenced object/ { obj = $0 } { text[obj] = text[obj] "\n" $0 }
	END { for (o in text) if (text[o] ~ /ftlblk|ftl_/) print text[o] }' $KML)
is "$leaks" "" "kmemleak: nothing allocated by ftlblk is leaked"
check_dmesg
