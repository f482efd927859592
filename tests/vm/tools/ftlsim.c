// SPDX-License-Identifier: GPL-2.0
/*
 * ftlsim in the guest: tools/ftlsim and the FTL core in one translation
 * unit, so that the guest harness (which builds every C file of tests/vm/tools
 * on its own, statically) gives /usr/local/bin/ftlsim, and guest tests can
 * compare the module's counters with the simulator's on the same trace
 * (tests/vm/guest/85-trace-replay.sh). No code of its own.
 */
#include "../../../tools/ftlsim/ftlsim.c"
#include "../../../tools/ftlsim/cli.c"
#include "../../../tools/ftlsim/workload.c"
#include "../../../tools/ftlsim/report.c"
#include "../../../tools/ftlsim/tracefile.c"
#include "../../../tools/ftlsim/replay.c"
#include "../../../tools/ftlsim/timed.c"
#include "../../../tools/ftlsim/device.c"
#include "../../../ftl/ftl.c"
#include "../../../ftl/blocks.c"
#include "../../../ftl/gc.c"
#include "../../../ftl/wear.c"
#include "../../../ftl/sanitize.c"
#include "../../../ftl/check.c"
#include "../../../ftl/port_user.c"
#include "../../../ftl/timing.c"
#include "../../../ftl/shard.c"
