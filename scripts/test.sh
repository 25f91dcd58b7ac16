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
cargo test --workspace --locked
# The GPU scripts' pure logic (ncu CSV and summary parsers, the sector model, timeouts):
# runs here, without a GPU.
python3 scripts/gpu_e2e_more_test.py
