#!/bin/bash
# The README's "Try the device yourself" example, typed as a user would:
# extracts the fenced block whose first line is "# inside the VM" from
# README.md (so the README and this test cannot drift), boots
# `tests/vm/run --shell`, waits for the shell, types the block line by line
# and `exit`, and checks what a user would see: no error from any command,
# the discard in the trace, a non-zero pages_discarded.
# Prints TAP and "N passed, N failed"; exits non-zero on failure.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/readme-shell.XXXXXX")
qpid=
trap '[ -n "$qpid" ] && kill "$qpid" 2>/dev/null; rm -rf "$work"' EXIT
# shellcheck source-path=SCRIPTDIR source=../lib/host-tap.sh
. "$top/tests/vm/lib/host-tap.sh"


echo "1..7"
awk '/^```/ { if (inblk) exit; getline first
		if (first == "# inside the VM") { inblk = 1; print first }
		next }
	inblk' "$top/README.md" >"$work/block.sh"
nlines=$(grep -cv '^#' "$work/block.sh")
tap "$([ "$nlines" -ge 3 ]; echo $?)" "README has the '# inside the VM' block ($nlines commands)" \
	"$(cat "$work/block.sh")"
sed 's/^/#   /' "$work/block.sh"

# The shell reads the serial console: type only once its banner is out,
# since characters sent before the port is opened are lost.
mkfifo "$work/in"
VM_SKIP_DEPS=${VM_SKIP_DEPS:-0} timeout -k 10 300 "$top/tests/vm/run" --shell \
	--out "$work/run" <"$work/in" >"$work/out" 2>&1 &
qpid=$!
exec 3>"$work/in"
up=1
for _ in $(seq 240); do
	grep -q 'Exit the shell to power off' "$work/out" && { up=0; break; }
	kill -0 "$qpid" 2>/dev/null || break
	sleep 0.5
done
tap $up "the VM shell came up with ftlblk loaded" "$(tail -n 20 "$work/out")"
sleep 1
while IFS= read -r line; do
	printf '%s\n' "$line" >&3
	sleep 0.3
done <"$work/block.sh"
printf 'echo readme-shell-rc=$?\nexit\n' >&3
wait "$qpid"
rc=$?
qpid=
exec 3>&-
# Without carriage returns and the terminal's escape sequences (bracketed
# paste, colours), as the user would read it.
tr -d '\r' <"$work/out" | sed 's/\x1b\[[?0-9;]*[a-zA-Z]//g' >"$work/out.clean"
out=$work/out.clean
tap "$([ $rc = 0 ]; echo $?)" "the VM powered off when the shell exited (status $rc)" \
	"$(tail -n 20 "$out")"
grep -q '^ftlblk loaded' "$out"
tap $? "ftlblk was loaded in the shell"
# Kernel log lines ("[    4.70] ...") share the console; the module is
# unsigned, which the kernel notes once.
errs=$(grep -vE '^\[ *[0-9]+\.[0-9]+\]' "$out" |
	grep -iE 'failed|invalid argument|cannot |not found|no such|error' || true)
tap "$([ -z "$errs" ]; echo $?)" "no command printed an error" "$errs"
trace=$(grep -E 'ftlblk_discard: ftlblk0 sector=[0-9]+ nr_sectors=[0-9]+' "$out")
tap "$([ -n "$trace" ]; echo $?)" "the trace shows the discard of the deleted file" \
	"$(tail -n 30 "$out")"
[ -n "$trace" ] && echo "# $trace"
# The last command prints pages_discarded alone on its line, right before
# our rc echo: the 16 MiB file freed 4096 flash pages.
pd=$(grep -B1 '# echo readme-shell-rc=' "$out" | head -n 1)
tap "$([[ $pd =~ ^[0-9]+$ ]] && [ "$pd" -ge 4096 ]; echo $?)" \
	"pages_discarded is at least the 16 MiB file's 4096 pages (got '$pd')" \
	"$(tail -n 30 "$out")"
tap_summary
