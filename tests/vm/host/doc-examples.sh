#!/bin/bash
# The docs' runnable examples, run in the guest as a reader would type
# them: scripts/doccheck --examples turns every fenced block marked
# "<!-- example: guest -->" in README.md, docs/ and the component READMEs
# into one guest test (each command must succeed; the "# => " lines after
# a command are exactly what it prints), which boots here with the guest
# suite's helpers. Ends with the suite's "N passed, N failed, N skipped".
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/doc-examples.XXXXXX")
trap 'rm -rf "$work"' EXIT

mkdir "$work/guest"
cp "$top/tests/vm/guest/lib.sh" "$work/guest/"
"$top/scripts/doccheck" --examples "$work/guest/09-doc-examples.sh" || exit 1
chmod 755 "$work/guest/09-doc-examples.sh"
sed 's/^/#   /' "$work/guest/09-doc-examples.sh"
VM_GUEST_DIR=$work/guest "$top/tests/vm/run" --timeout 600 09-doc-examples
