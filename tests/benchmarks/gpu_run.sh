#!/usr/bin/env bash
# On the lent GPU machine (../shared/NOTES-gpu.md), from the repository root, with tests/benchmarks/.gpu carried
# (gpu_wheels.sh fills it here first):
#
#     run(command="bash tests/benchmarks/gpu_run.sh", carry=["tests/benchmarks/.gpu"], timeout_s=600)
#
# 1. installs, with --no-deps into a target folder ($TARGET, default /tmp/dm-site), the carried wheels whose
#    module the machine cannot import (unbabel-comet, entmax, bert-score, matplotlib and what it needs) and
#    docmetrics itself, and transformers 4.57 with its tokenizers and huggingface-hub (COMET 2.2.7 fails with
#    transformers 5: see gpu_wheels.sh); the machine's torch and numpy 2 stay;
# 2. checks that COMET's model classes, bert-score and docmetrics' backbones import with the machine's numpy and
#    transformers, and prints the versions (a failure stops here, in seconds, with the import error);
# 3. runs `bench_gpu.py --full $OUT` (the JSON and the table come back in $OUT, written again after every arm;
#    extra arguments go to it: --precisions fp16,bf16 --arms slide66,...,metricx,llm --peers fp16 --budget-s 450).
set -euo pipefail
cd "$(dirname "$0")/../.."
wheels=tests/benchmarks/.gpu/wheels
target="${TARGET:-/tmp/dm-site}"
out="${OUT:-/tmp/bench-gpu-out}"
py="${PYTHON:-python3}"
[ -d "$wheels" ] || { echo "no $wheels: run tests/benchmarks/gpu_wheels.sh here and carry tests/benchmarks/.gpu" >&2; exit 2; }
mkdir -p "$target" "$out"

# wheel (distribution name) -> module it provides: install only what the machine lacks
need=()
for pair in unbabel_comet:comet entmax:entmax bert_score:bert_score matplotlib:matplotlib contourpy:contourpy \
            cycler:cycler fonttools:fontTools kiwisolver:kiwisolver pyparsing:pyparsing pillow:PIL \
            setuptools:pkg_resources docmetrics:docmetrics; do
    dist="${pair%%:*}" module="${pair#*:}"
    if [ "$dist" = docmetrics ] || ! "$py" -c "import $module" 2>/dev/null; then
        need+=("$(ls "$wheels"/"$dist"-*.whl 2>/dev/null | head -1)")
    fi
done
# COMET 2.2.7 and docmetrics' comet backbone need transformers < 5 (gpu_wheels.sh says why): shadow the machine's
if [ "${MACHINE_TRANSFORMERS:-0}" != 1 ]; then
    for dist in transformers tokenizers huggingface_hub; do need+=("$(ls "$wheels"/"$dist"-*.whl | head -1)"); done
fi
echo "installing into $target: ${need[*]##*/}"
"$py" -m pip install --quiet --no-deps --no-index --target "$target" "${need[@]}"
export PYTHONPATH="$target${PYTHONPATH:+:$PYTHONPATH}" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false

"$py" - <<'EOF'
import importlib.metadata as md
import numpy, torch, transformers
from comet.models import RegressionMetric, UnifiedMetric, str2model  # noqa: F401  (COMET's classes)
import bert_score.utils  # noqa: F401
import docmetrics
from docmetrics.plugin import registry
for kind, name in (("backbone", "comet"), ("backbone", "bertscore"), ("backbone", "metricx"), ("backbone", "llm"),
                   ("metric", "slide"), ("metric", "doc-comet")):
    registry.load(kind, name)  # the entry points resolve and their modules import
print("imports ok:", ", ".join(f"{d} {md.version(d)}" for d in (
    "torch", "transformers", "tokenizers", "numpy", "unbabel-comet", "bert-score", "pytorch-lightning", "torchmetrics",
    "sentencepiece", "jinja2", "docmetrics")))
print("cuda:", torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else "")
EOF

data=()
[ -f tests/benchmarks/.gpu/ted/src.txt ] && data=(--data tests/benchmarks/.gpu/ted)
"$py" tests/benchmarks/bench_gpu.py --full "$out" "${data[@]}" "$@"
