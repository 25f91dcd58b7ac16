# Sourced by the kernel-time experiments (scripts/contention-experiment.sh,
# scripts/dmat-experiment.sh), from the repository root, after setting OUT (the results
# folder), K (the bench_kernels.py cases) and TIMEOUT (seconds a variant may take).
# `run NAME [warptrace arguments...]` times those kernels (30 launches, CUDA events)
# plainly without arguments, else under .gpu/warptrace with them, into $OUT/NAME.json and
# $OUT/NAME.log; `scripts/kernel_times.py $OUT` then compares the variants.
mkdir -p "$OUT"
PY=${PY:-/opt/torch/.venv/bin/python3}
[ -x "$PY" ] || PY=python3
bench=(tests/workloads/bench_kernels.py --runs 30 --warmup 5 --kernel-only-runs 0 --kernels "$K")
run() { # name [warptrace arguments...]
    local name=$1
    shift
    local wt=()
    [ "$#" -gt 0 ] && wt=(.gpu/warptrace "$@" --)
    timeout "$TIMEOUT" "${wt[@]}" "$PY" "${bench[@]}" --out-json "$OUT/$name.json" >"$OUT/$name.log" 2>&1
    echo "$name: exit $?"
}
