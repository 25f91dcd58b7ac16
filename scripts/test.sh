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
