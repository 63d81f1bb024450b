#!/usr/bin/env bash
# Measures `hotword enroll` the way docs/training.md reports it. We have no recordings of one
# person saying a word many times, so people stand in for one: the first six recordings (by name)
# of the train part of ../shared/data/keywords/jarvis, of which enroll refuses two (one much longer
# than the others, one over 1.8 s) and trains on the four left. The personal model is then judged on the 49
# test-part "jarvis" recordings (other people) spread through the test part of the real speech,
# noise at 10 dB SNR, 10 passes. Slow (minutes): not part of the test suite.
#
#   scripts/measure-enroll.sh [enroll options…]     # e.g. --quick
#
# HOTWORD_ENROLL_OUT: where the enrollment folder, model and figures go (default .build-enroll);
# its synthetic clips are kept between runs with the same --synthetic, --seed and --engine.
set -euo pipefail
cd "$(dirname "$0")/.."
S=../shared/data
OUT=${HOTWORD_ENROLL_OUT:-.build-enroll}
swift build -c release
hotword=.build/release/hotword
takes=(008a6329-b20c-4cfc-9ad4-9e7034bc5148 00aba123-ae3a-4e0a-8603-9f7277b7d41f 00af045b-ead8-4379-9110-c038e0bdd855
       01f13214-d1eb-48b6-8f58-e397731158fd 01f46f97-7ea8-474a-9285-13b038477eec 03cbb7ba-8e69-4f6a-b289-32ed4b686417)
files=()
for take in "${takes[@]}"; do files+=("$S/keywords/jarvis/$take.flac"); done
rm -rf "$OUT/enroll/takes"
mkdir -p "$OUT"
/usr/bin/time -f 'enroll: %e s wall, %U s user + %S s system CPU, peak memory %M kB' \
  $hotword enroll --keyword jarvis --files "${files[@]}" --dir "$OUT/enroll" --out "$OUT/jarvis.hwks" \
  --data-dir "$OUT/no-fetched-corpora" "$@"   # the recipe as measured: no corpora from `hotword data fetch`
$hotword eval --model "$OUT/jarvis.hwks" --positives "$S/keywords/jarvis" --negatives "$S/speech" \
  --noise "$S/noise" --snr 10 --part test --passes 10 | tee "$OUT/eval.txt"
