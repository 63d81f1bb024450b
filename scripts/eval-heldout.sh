#!/usr/bin/env bash
# Judges a model on the sources no training example came from (scripts/heldout-sources.sh):
# false alarms per hour at the default sensitivity for each held-out speech corpus and each
# held-out noise heard alone, the worst of them, the miss rate on the test part of the
# keyword's recordings spread through that speech, under held-out noise at 10 dB SNR, and the
# miss rate with each recording as the start of a stream of its own (speech from its first
# sample, and 2 s in: `eval --lead`); then the miss rate with the same people under the same noise
# at 0 dB over their speech (the noise heard alone between them), where the held-out judge's
# figures sit (docs/training.md, "Noise as the judge mixes it").
#
#   scripts/eval-heldout.sh MODEL [KEYWORD-FOLDER…] [-- more eval options, e.g. --json (two JSON reports) or --seed 11]
#
# Ten passes (each clip heard ten times, in fresh noise and order): about 9 h of held-out speech
# and 3.7 h of noise alone, a minute or two on the 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/heldout-sources.sh
[ $# -ge 1 ] || { echo "usage: scripts/eval-heldout.sh MODEL [KEYWORD-FOLDER…] [-- eval options]" >&2; exit 64; }
model=$1; shift
args=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=(--positives "$1"); shift; done
[ "${1:-}" = -- ] && shift
for source in "${HELDOUT_SPEECH[@]}"; do args+=(--source "$source"); done
for noise in "${HELDOUT_NOISE[@]}"; do args+=(--noise-alone "$noise" --noise "$noise"); done
hotword=${HOTWORD:-.build/release/hotword}
[ -x "$hotword" ] || swift build -c release
"$hotword" eval --model "$model" "${args[@]}" --snr 10 --part test --passes 10 --lead 0 --lead 2 "$@"
people=() noise=()
for ((i = 0; i < ${#args[@]}; i += 2)); do
  case ${args[i]} in --positives) people+=(--positives "${args[i+1]}") ;; --noise | --noise-alone) noise+=("${args[i]}" "${args[i+1]}") ;; esac
done
if ((${#people[@]})); then
  case " $* " in *" --json "*) ;; *) echo "== the same people under the same noise at 0 dB" ;; esac
  "$hotword" eval --model "$model" "${people[@]}" "${noise[@]}" --snr 0 --part test --passes 10 "$@"
fi
