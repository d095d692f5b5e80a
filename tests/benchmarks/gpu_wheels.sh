#!/usr/bin/env bash
# Prepare, on a machine with the package index, what the lent GPU machine lacks for
# `bench_gpu.py --full` (../shared/NOTES-gpu.md: Python 3.12, torch, transformers, numpy 2,
# pytorch-lightning, torchmetrics, pandas, scipy, sacrebleu are there; unbabel-comet, bert-score and
# docmetrics are not).  Everything goes to tests/benchmarks/.gpu/ (ignored by git: its own .gitignore
# says '*'), which the device tool carries (one path, well under its 64 MiB):
#
#   .gpu/wheels/  cp312 manylinux x86-64 wheels, installed there with --no-deps by gpu_run.sh (only
#                 those whose module the machine cannot import), and docmetrics' own wheel built here
#   .gpu/ted/     the texts of ../shared/data/wmt21_ted_ende as wmt_data.py writes them (only where
#                 ../shared is; without it bench_gpu.py uses the sample in tests/benchmarks/data)
#
#     bash tests/benchmarks/gpu_wheels.sh      # then: run(command="bash tests/benchmarks/gpu_run.sh",
#                                              #           carry=["tests/benchmarks/.gpu"])
#
# Why each wheel (what the code that runs imports, found by reading it):
#   unbabel-comet  COMET's model classes (comet.models), its predict() is a peer
#   entmax         comet/modules/layerwise_attention.py: layer_transformation=sparsemax, as in
#                  wmt22-comet-da and wmt22-cometkiwi-da
#   bert-score     the peer bert_score.score and docmetrics' bertscore backbone (bert_score.utils)
#   matplotlib (+ contourpy cycler fonttools kiwisolver pyparsing pillow): `import bert_score` imports
#                  matplotlib.pyplot at module level
#   setuptools<81  docmetrics' registry lists the comet backbone as unavailable unless every requirement of its
#                  'comet' extra is installed (setuptools<81 is one: pkg_resources for torchmetrics 0.10)
#   transformers 4.57 (+ tokenizers 0.22, huggingface-hub 0.36, as it pins them): unbabel-comet 2.2.7 pins
#                  transformers<5, and with 5.17 (the machine's) CometKiwi's UnifiedMetric fails
#                  (tokenizer.build_inputs_with_special_tokens is gone), as does docmetrics' comet backbone,
#                  which calls it too; found by running --smoke with numpy 2.3, transformers 5.17 and
#                  torchmetrics 1.9.  gpu_run.sh installs these three always (MACHINE_TRANSFORMERS=1: not)
# Not carried: jsonargparse, tabulate (comet's CLI only), sacrebleu, pandas, scipy, pyyaml, tqdm,
# huggingface-hub, sentencepiece, protobuf-free tokenizers (the machine has them); numpy 1.26 (comet's
# model classes import with numpy 2: gpu_run.sh checks before measuring).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$here/.gpu"
mkdir -p "$out/wheels"
printf '*\n' > "$out/.gitignore"
rm -f "$out"/wheels/*.whl

pip download --quiet --only-binary=:all: --no-deps --python-version 3.12 --implementation cp \
    --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
    -d "$out/wheels" \
    unbabel-comet==2.2.7 entmax==1.3 bert-score==0.3.13 \
    matplotlib==3.11.2 contourpy==1.3.3 cycler==0.12.1 fonttools==4.68.0 kiwisolver==1.5.1 \
    pyparsing==3.3.3 pillow==13.0.0 setuptools==80.9.0 \
    transformers==4.57.6 tokenizers==0.22.2 huggingface-hub==0.36.0
# docmetrics as this work tree has it (rerun this script after changing the code), built from a copy
# of the tracked files so that no build/ folder appears in the work tree
src="$(mktemp -d)"
trap 'rm -rf "$src"' EXIT
git -C "$root" ls-files -z | (cd "$root" && xargs -0 tar -cf - 2>/dev/null) | tar -xf - -C "$src"
pip wheel --quiet --no-deps --no-build-isolation -w "$out/wheels" "$src" >/dev/null

shared="$root/../shared/data/wmt21_ted_ende"
if [ -f "$shared/segments.tsv" ]; then
    python "$here/wmt_data.py" "$shared" "$out/ted" >/dev/null
    echo "texts: $out/ted (from $shared)"
else
    echo "texts: no $shared; bench_gpu.py will use tests/benchmarks/data/ted_ende_sample.tsv.xz"
fi
ls -l "$out/wheels" | awk 'NR > 1 {printf "%8.2f MiB  %s\n", $5 / 1048576, $9}'
du -sm "$out" | awk '{print "total: " $1 " MiB in " "'"$out"'" " (the device tool carries 64 MiB)"}'
