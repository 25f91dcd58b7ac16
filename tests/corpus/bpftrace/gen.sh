#!/usr/bin/env bash
# Regenerates each program's expected output with bpftrace itself (as root; host-only
# programs: BEGIN, END, interval): `NAME.expected` (text) and `NAME.json.expected`
# (`-f json`), without the empty lines bpftrace's JSON output has between records
# (warptrace's is one record a line). `NAME.args`, where there is one, holds the
# program's positional parameters ($1 …), separated by spaces.
set -euo pipefail
cd "$(dirname "$0")"
bpftrace --version
for f in *.bt; do
  args=()
  if [ -f "${f%.bt}.args" ]; then read -r -a args < "${f%.bt}.args"; fi
  bpftrace "$f" "${args[@]}" 2>/dev/null > "${f%.bt}.expected"
  bpftrace -f json "$f" "${args[@]}" 2>/dev/null | grep -v '^$' > "${f%.bt}.json.expected"
done
