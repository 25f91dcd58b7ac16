#!/usr/bin/env bash
# Regenerates each program's expected output with bpftrace itself (as root; host-only
# programs: BEGIN, END, interval): `NAME.expected` (text) and `NAME.json.expected`
# (`-f json`), without the empty lines bpftrace's JSON output has between records
# (warptrace's is one record a line).
set -euo pipefail
cd "$(dirname "$0")"
bpftrace --version
for f in *.bt; do
  bpftrace "$f" 2>/dev/null > "${f%.bt}.expected"
  bpftrace -f json "$f" 2>/dev/null | grep -v '^$' > "${f%.bt}.json.expected"
done
