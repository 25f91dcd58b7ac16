#!/usr/bin/env bash
# The project's test command (README; .ci/run calls it): installs the external tools the
# tests need (scripts/setup.sh), then runs formatting, lints and the whole test suite.
# Under CI=true a missing tool fails the tests instead of skipping them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/setup.sh
source .tools/env.sh
cargo fmt --all --check
cargo build --workspace --locked
cargo clippy --workspace --all-targets --locked -- -D warnings
# The run's processes share their named translation-validation proofs (decision 0043):
# a fresh directory each run, so every proof is made once in the run and none is taken
# from an earlier one. The term-keyed layer stays off: on GCN queries its keys cost more
# than its hits save (decision 0042).
proofs=$(mktemp -d "${TMPDIR:-/tmp}/warptrace-proofs.XXXXXX")
trap 'rm -rf "$proofs"' EXIT
export WARPTRACE_PROOF_CACHE="$proofs" WARPTRACE_PROOF_CACHE_TERMS=off
# nextest runs the tests of every binary on both cores at once, so that one binary's
# last slow test does not leave a core idle; doctests are cargo's alone.
if command -v cargo-nextest >/dev/null; then
  cargo nextest run --workspace --locked --no-fail-fast
  cargo test --workspace --locked --doc
else
  echo "test: cargo-nextest is not installed: the test binaries run one after another (slower)"
  cargo test --workspace --locked
fi
# The GPU scripts' pure logic (ncu CSV and summary parsers, the sector model, timeouts):
# runs here, without a GPU.
python3 scripts/gpu_e2e_more_test.py
