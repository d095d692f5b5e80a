#!/usr/bin/env bash
# Issue 50, item 2, in ONE call of the device tool (under 8 minutes), after `bash tests/benchmarks/gpu_wheels.sh` here:
#
#     run(command="bash tests/benchmarks/gpu_ab.sh", carry=["tests/benchmarks/.gpu"], timeout_s=540)
#
# 1. gpu_run.sh unchanged (installs the carried wheels, checks the imports, runs bench_gpu.py --full) on every
#    arm at bf16 only (issue 50's goals are bf16 mfu; fp16 and bf16 together took over 7 minutes on 2026-11-27),
#    within RUN_S seconds (default 230; COMET's predict() and bert-score, the slow peers, run at
#    fp16 only (--peers), so not here: MetricX's and the LLM's peers, and the exact-length reference, do): bench_gpu.json and bench_gpu.md;
# 2. bench_ab.py --full: the encoder's A/B arms (attn_implementation sdpa / eager / flash_attention_2, widths
#    padded to multiples of 64, torch.compile, packed sequences through varlen attention, CUDA graphs per shape,
#    larger budgets) on the sequences of BERTScore, SLIDE(2,1) and SLIDE(6,6), within AB_S seconds (default 140):
#    bench_ab.json and bench_ab.md;
# 3. nvidia-smi and the log.
# Everything lands in $OUT flat (the tool brings back 8 files at most, 2 folders down); copy it here to
# tests/benchmarks/results/<device>-<date>/ (the folder name is printed at the end, e.g. h200-2026-11-29).
#
# On a machine without a GPU (the CPU fallback, checked here): DRY=1 runs bench_gpu.py --smoke and
# bench_ab.py --smoke with the working tree's code instead of the installs, into OUT (default /tmp/gpu-ab-out).
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp/gpu-ab-out}"
mkdir -p "$out"
export PYTHONUNBUFFERED=1
py="${PYTHON:-python3}"
log="$out/gpu_ab.log"
start=$(date +%s)
{
    echo "gpu_ab.sh $(date -u +%FT%TZ) $(git rev-parse --short HEAD 2>/dev/null || echo no-git)"
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
} | tee "$log"

if [ "${DRY:-0}" = 1 ]; then
    export PYTHONPATH="$PWD:$PWD/plugins${PYTHONPATH:+:$PYTHONPATH}" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
    "$py" tests/benchmarks/bench_gpu.py --smoke --out "$out" 2>&1 | tail -5 | tee -a "$log"
    "$py" tests/benchmarks/bench_ab.py --smoke --out "$out" --budgets 16384 --budget-s "${AB_S:-150}" 2>&1 \
        | tee -a "$log"
    status=${PIPESTATUS[0]}
else
    # 1. the existing run, unchanged, bf16, every arm (its own --budget-s stops it adding parts in time)
    OUT="$out" TARGET="${TARGET:-/tmp/dm-site}" bash tests/benchmarks/gpu_run.sh --precisions bf16 \
        --budget-s "${RUN_S:-230}" 2>&1 | tee -a "$log"
    echo "gpu_run.sh: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s" | tee -a "$log"
    # 2. the A/B arms, with what gpu_run.sh installed (transformers 4.57 etc. in the target folder)
    export PYTHONPATH="${TARGET:-/tmp/dm-site}${PYTHONPATH:+:$PYTHONPATH}" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
    data=()
    [ -f tests/benchmarks/.gpu/ted/src.txt ] && data=(--data tests/benchmarks/.gpu/ted)
    "$py" tests/benchmarks/bench_ab.py --full "$out" "${data[@]}" --budgets 65536,131072 \
        --budget-s "${AB_S:-140}" 2>&1 | tee -a "$log"
    status=${PIPESTATUS[0]}
fi
device=$("$py" -c "import torch; print(torch.cuda.get_device_name(0).split()[-1].lower() if torch.cuda.is_available() else 'cpu')" 2>/dev/null || echo unknown)
echo "gpu_ab.sh: done in $(( $(date +%s) - start )) s; files in $out: $(ls "$out" | tr '\n' ' ')" | tee -a "$log"
echo "copy them to tests/benchmarks/results/$device-$(date -u +%F)/" | tee -a "$log"
exit "$status"
