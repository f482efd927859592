# ftlblk: a flash SSD emulator whose FTL consumes discard requests.
#
#   make demo     the main job: boots a VM and shows what discard does to a
#                 flash device (WAF, GC, wear), table + plot in $(OUT)
#   make check    every test: FTL core unit/model tests (plain and
#                 ASan/UBSan), ftlsim theory tests, lint, the QEMU suite
#
# Both install what they need with apt (scripts/install-deps) and never load
# anything into this machine's kernel.

# KERNEL=bookworm|bookworm-backports|trixie|sid: the Debian release whose
# kernel the module is built for (in that release's chroot) and the VM
# boots; KVER pins one version of it (scripts/kernel-env).
KERNEL ?= bookworm
export KERNEL

.PHONY: all deps module ftlsim check check-kernels test-ftl test-ftlsim lint \
	test-vm demo study forensic bench soak crash-test fuzz check-debug mutants deb clean \
	blktests xfstests

all: module ftlsim

deps:
	scripts/install-deps

# Into .cache/build/KERNEL-KVER/module (scripts/build-module).
module: deps
	scripts/build-module

ftlsim:
	$(MAKE) -C tools/ftlsim

# make check: bookworm's 6.1 and trixie's 6.12; make check-kernels: also
# Debian 12's 6.12 (bookworm-backports) and sid's 7.x.
check: deps
	scripts/check

check-kernels: deps
	CHECK_KERNELS="bookworm trixie bookworm-backports sid" CHECK_HOST_ALL=1 \
		scripts/check

test-ftl:
	$(MAKE) -C ftl test

test-ftlsim:
	$(MAKE) -C tools/ftlsim test

lint: deps
	scripts/lint

# The whole guest suite shares one boot; allow it 40 minutes of TCG.
test-vm: module
	tests/vm/run --timeout $${VM_TIMEOUT:-2400}

# make demo [SIZE=MiB] [OP=%] [POLICY=greedy|fifo|cost-benefit]
#           [WRITES=x capacity] [FS="vfat ext4 xfs btrfs f2fs" (any)] [FILL=%]
#           [FSTRIM_EVERY=x capacity] [SEED=N] [TIMING=1|0] [READS=KiB]
#           [OUT=DIR]
#           (see demo/run -h; TIMING=0: RAM speed, no modeled flash timing)
# make study: the same with every filesystem and discard regime, and a
#           report (study.md, study.png; demo/study -h; docs/study.md);
#           STEADY=1: each regime to its steady state, at 65 % fill
DEMO_VARS = SIZE='$(SIZE)' OP='$(OP)' POLICY='$(POLICY)' WRITES='$(WRITES)' \
	FS='$(FS)' FILL='$(FILL)' FILL_OF='$(FILL_OF)' FSTRIM_EVERY='$(FSTRIM_EVERY)' SEED='$(SEED)' \
	TIMING='$(TIMING)' READS='$(READS)' IDLE='$(IDLE)' OUT='$(OUT)' STEADY='$(STEADY)'
demo: module
	DEMO_SKIP_BUILD=1 demo/run $(DEMO_VARS)

study: module
	DEMO_SKIP_BUILD=1 demo/study $(DEMO_VARS)

# make forensic [SIZE=MiB] [CHURN=N] [FILES=N] [FILE_KIB=KiB] [FS="ext4 vfat"]
#               [OUT=DIR]: deleted files' data left in the raw flash
#               (demo/forensic -h; docs/flash-image.md)
forensic: module
	demo/forensic SIZE='$(SIZE)' CHURN='$(CHURN)' FILES='$(FILES)' \
		FILE_KIB='$(FILE_KIB)' FS='$(FS)' OUT='$(OUT)'

bench: module
	bench/run

# make soak [SOAK_TIMES=100] [SOAK_SIZE_MIB=32] [SOAK_OP=5] [SOAK_POLICY=..]
# [SOAK_PARAMS="program_fail_ppm=.. ..."] [SINK_TIMES=100] [SINK_CUTS=50]
# [SINK_SIZE_MIB=16] [SINK_PARAMS=..] [SOAK_ONLY=fio|sink]: a long fio
# verify run, then the kitchen sink (everything on, power cuts under ext4)
# (tests/soak/run).
soak: module
	tests/soak/run

# The kernel community's suites in the Debian guest (tests/vm/run --rootfs
# debian) on ftlblk devices; checkouts are never copied into this tree.
# make blktests BLKTESTS=DIR [BLKTESTS_ARGS=..] [OUT=DIR]  (scripts/blktests -h)
# make xfstests XFSTESTS=DIR [XFSTESTS_ARGS=..] [FSTYP=ext4] [OUT=DIR]
#                                                         (scripts/xfstests -h)
# Every variable comes from make's command line through the environment.
blktests: module
	scripts/blktests

xfstests: module
	scripts/xfstests

# make crash-test [CUTS=100] [VFAT_CUTS=20] [SEED=1]: power cuts under a
# file workload with the write cache on (86-crash.sh with many cuts).
crash-test: module
	TEST_TIMEOUT=5000 tests/vm/run --timeout $${VM_TIMEOUT:-5400} \
		--env CRASH_CUTS=$(or $(CUTS),100) \
		--env CRASH_VFAT_CUTS=$(or $(VFAT_CUTS),20) \
		--env CRASH_SEED=$(or $(SEED),1) 86-crash

# The VM suite on a KASAN + lockdep + kmemleak kernel built from source.
check-debug:
	scripts/check-debug

fuzz:
	$(MAKE) -C ftl fuzz

# Mutation testing (not part of check): every deliberate bug in
# tests/mutants/ must be caught by the stages it names. scripts/mutants -h.
mutants: deps
	scripts/mutants $(MUTANTS)

# make deb [OUT=DIR]: ftlblk-dkms_<version>_all.deb (module and FTL core
# sources + dkms.conf) and ftlblk-tools_<version>_<arch>.deb (ftlsim, man
# page), built with dpkg-buildpackage/debhelper/dh-dkms in a temporary copy;
# into DIR, default the top directory. Install: apt install ./ftlblk-dkms_*.deb
deb: deps
	scripts/build-deb $(if $(OUT),'$(OUT)')

clean:
	$(MAKE) -C module clean
	$(MAKE) -C tests/kmod clean
	rm -f ftlblk-dkms_*.deb ftlblk-tools_*.deb
	$(MAKE) -C ftl clean
	$(MAKE) -C tools/ftlsim clean
