#!/usr/bin/env bash
# Fuzzes one parser: scripts/fuzz.sh lang_compile|ir_parse|ptx_parse|gcn_parse [SECONDS]
# cargo-fuzz needs nightly features; the stable toolchain is used with RUSTC_BOOTSTRAP=1
# and no sanitizer (panics and assertion failures are still caught). Seeds come from the
# repository's own programs, IR files and PTX corpus; crashes land in fuzz/artifacts/.
set -euo pipefail
target=${1:?usage: scripts/fuzz.sh lang_compile|ir_parse|ptx_parse|gcn_parse [SECONDS]}
seconds=${2:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root/fuzz"
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
corpus="corpus/$target"
mkdir -p "$corpus"
case "$target" in
  lang_compile) find ../lang/tests -name '*.wt' -exec cp {} "$corpus/" \; ;;
  ir_parse) cp ../ir/tests/golden/*.ir "$corpus/" ;;
  ptx_parse) cp ../tests/corpus/ptx/*.ptx "$corpus/" ;;
  gcn_parse) cp ../tests/corpus/gcn/*.s "$corpus/" ;;
  *) echo "unknown target $target" >&2; exit 2 ;;
esac
RUSTC_BOOTSTRAP=1 cargo fuzz build -s none "$target"
RUSTC_BOOTSTRAP=1 cargo fuzz run -s none "$target" "$corpus" -- \
  -max_total_time="$seconds" -max_len=65536 -print_final_stats=1
