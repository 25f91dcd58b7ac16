#!/usr/bin/env bash
# Regenerates the probe library's certificates, probes/certs/NAME.ptx.json and
# NAME.gcn.json, with `warptrace verify -p NAME --target T --cert` (the binary is built
# first, so it embeds the probes as they are now). Timings (`micros`, `total_micros`)
# are written as 0, so a certificate changes only when what was proved changes;
# tests/tests/probe_certs.rs checks that every committed certificate is exactly what
# `warptrace verify` proves now. Review the diff.
#
#   bash scripts/probe-certs.sh            # every probe (and drop certificates of
#                                          # probes that no longer exist)
#   bash scripts/probe-certs.sh NAME...    # only these
#   TARGETS=gcn bash scripts/probe-certs.sh # one target's certificates only
#
# Each PTX run repeats the PTX back end's translation validation (about 35 s on 2 cores);
# a GCN run proves the operation forms the probe uses (seconds; 10-35 s for a probe
# reading a warp-wide value, whose waterfall is proved over a 64-lane wave) and lists the
# lowerings no proof covers (`not_proved`).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cargo build --release --locked --bin warptrace
target_dir=${CARGO_TARGET_DIR:-target}
case "$target_dir" in
/*) ;;
*) target_dir="$root/$target_dir" ;;
esac
bin="$target_dir/release/warptrace"
mkdir -p probes/certs
if [ $# -eq 0 ]; then
    names=()
    for f in probes/*.wt; do
        names+=("$(basename "$f" .wt)")
    done
    for cert in probes/certs/*.json; do
        [ -e "$cert" ] || continue
        name=$(basename "$cert" .json)
        name=${name%.*}
        if [ ! -e "probes/$name.wt" ]; then
            echo "removing $cert: probes/$name.wt is gone"
            rm "$cert"
        fi
    done
else
    names=("$@")
fi
status=0
for name in "${names[@]}"; do
    for target in ${TARGETS:-ptx gcn}; do
        cert="probes/certs/$name.$target.json"
        if "$bin" verify -p "$name" --target "$target" --cert "$cert" >"$cert.report" 2>&1; then
            head -n 1 "$cert.report"
        else
            cat "$cert.report"
            echo "warptrace verify -p $name --target $target: NOT VERIFIED ($cert records what did not hold)" >&2
            # A GCN certificate may leave an obligation unproved (features' 64-bit
            # multiplication, which z3 does not decide): recorded, reviewed in the diff.
            [ "$target" = gcn ] || status=1
        fi
        rm -f "$cert.report"
        sed -E -i 's/"(total_)?micros": [0-9]+/"\1micros": 0/' "$cert"
    done
done
exit $status
