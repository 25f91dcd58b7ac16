#!/usr/bin/env bash
# Where a probe site's cost goes: Nsight Compute metrics of one layernorm launch, plain,
# under a count() at every global access (with the run predicate) and under dmat. On the
# device machine, with .gpu/ from scripts/package-gpu.sh: OUT=DIR bash scripts/ncu-site.sh
# (K=kernel case, KR=name regex; ~40 s). The dmat variant probes launches SKIP to SKIP+2
# (default 40, unchecked: set it to reach the kernel; the run in decision 0020 probed none).
set -uo pipefail
PY=${PY:-/opt/torch/.venv/bin/python3}; [ -x "$PY" ] || PY=python3
OUT=${OUT:-ncu-out}; mkdir -p "$OUT"
reasons="long_scoreboard lg_throttle membar wait math_pipe_throttle barrier branch_resolving no_instruction short_scoreboard drain mio_throttle dispatch_stall misc not_selected selected sleeping tex_throttle imc_miss"
m="gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,lts__t_sectors_op_atom.sum,lts__t_sectors_op_red.sum,lts__t_requests_op_atom.sum,lts__t_requests_op_red.sum,dram__bytes.sum,smsp__cycles_active.avg"
for r in $reasons; do m="$m,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"; done
bench=(tests/workloads/bench_kernels.py --runs 2 --warmup 1 --kernel-only-runs 0 --kernels "${K:-layernorm}")
for v in plain count dmat; do
  case $v in
    plain) pre=() ;;
    count) pre=(.gpu/warptrace -e 'mem:global:* /(run & ((1 << lane) - 1)) == 0/ { @n[kernel] = count(); }' --) ;;
    dmat) pre=(.gpu/warptrace -p dmat --launch-skip ${SKIP:-40} --launch-count 3 --) ;;
  esac
  timeout 200 ncu --target-processes all -k "regex:${KR:-layernorm}" -s 1 -c 1 --metrics "$m" "${pre[@]}" "$PY" "${bench[@]}" --out-json "$OUT/$v.json" > "$OUT/$v.txt" 2>&1
  echo "$v: exit $?"
done
for v in plain count dmat; do
  echo "== $v"; grep -E "^\s+(gpu__time|launch__reg|sm__warps|smsp__inst_exec|lts__t_|dram__bytes|smsp__cycles|smsp__average_warps)" "$OUT/$v.txt" | awk '{print $1, $(NF)}' | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//'
done
