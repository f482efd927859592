#!/bin/sh
# On a kernel with kmemleak (scripts/check-debug builds one): create, use,
# discard and remove ftlblk devices and check that kmemleak finds no
# unreferenced object allocated by ftlblk. Skipped on Debian's kernel, which
# has no kmemleak (the only skip tests/vm/run allows there).
#
# kmemleak names the allocating function in each leak's backtrace only while
# the module is loaded, so the first scan runs with ftlblk still loaded
# (after its configfs device is gone); the second, after unloading, catches
# what module exit leaks: its backtraces show ftlblk's frames as bare
# addresses in the module area. kmemleak tracks kmalloc/vmalloc, not
# alloc_pages(): data pages are 98-memleak's job.
. /tests/lib.sh

KML=/sys/kernel/debug/kmemleak
[ -w $KML ] || skip_all "kernel has no kmemleak"
plan 7

# Print every leak report in $KML whose text matches ERE $1.
leaks_matching() {
	awk -v re="$1" '/^unreferenced object/ { obj = $0 }
		obj != "" { text[obj] = text[obj] "\n" $0 }
		END { for (o in text) if (text[o] ~ re) print text[o] }' $KML
}
# kmemleak reports an object only after it stayed unreferenced through two
# scans; a scan that runs while writes are in flight may miss nothing we want.
scan_twice() { echo scan >$KML; sleep 5; echo scan >$KML; }

echo clear >$KML
ok "modprobe ftlblk size=64" modprobe ftlblk size=64
ok "write, discard, overwrite with GC" sh -c '
	fio --eta=never --name=w --filename=/dev/ftlblk0 --rw=randwrite --bs=4k \
		--size=64M --io_size=192M --direct=1 --output=/dev/null &&
	blkdiscard -f -o 1048576 -l 4194304 /dev/ftlblk0 &&
	blkdiscard -f -o 4608 -l 1024 /dev/ftlblk0'
cfg=/sys/kernel/config/ftlblk/leak
ok "configfs device created, used and removed" sh -c "
	mkdir $cfg && echo 16 >$cfg/size && echo 64 >$cfg/pages_per_block &&
	echo 1 >$cfg/power &&
	dd if=/dev/zero of=/dev/ftlblk1 bs=1M count=4 oflag=direct 2>/dev/null &&
	echo 0 >$cfg/power && rmdir $cfg"
scan_twice
leaks=$(leaks_matching 'ftlblk|ftl_')
is "$leaks" "" "kmemleak, module loaded: nothing allocated by ftlblk is leaked"
ok "modprobe -r ftlblk" modprobe -r ftlblk
scan_twice
# Frames of an unloaded module print as "[<ffffffffc...>] 0xffffffffc...".
leaks=$(leaks_matching 'ftlblk|ftl_|\] 0xffffffff[a-f][0-9a-f]+$')
is "$leaks" "" "kmemleak, module unloaded: nothing allocated by module code is leaked"
all=$(leaks_matching .)
diag "all kmemleak reports since the start: $(printf '%s' "$all" | grep -c '^unreferenced object')"
# kmemleak's "N new suspected memory leaks" lines in dmesg only announce
# reports, from any part of the kernel; the reports themselves, read above,
# say whether ftlblk allocated the object.
check_dmesg
