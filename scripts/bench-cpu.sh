#!/usr/bin/env bash
# CPU per hour of audio, whole process, hotword against microWakeWord on the same files in the
# same run (a benchmark, not a test; README, "Speed"). For each shipped model, `hotword detect`
# over an hour of read speech, an hour of noise alone and an hour of near silence; microWakeWord
# (PyPI pymicro-wakeword 2.5.0, its models and TensorFlow Lite inside the wheel, in a venv under
# .build-bench) over the same files with its nearest model. Prints user + system CPU seconds,
# peak resident memory, the detections, and hotword's CPU as a share of microWakeWord's.
#
#   scripts/bench-cpu.sh [--models "computer jarvis alexa hey_susi"] [--hotword .build/release/hotword]
#
# The hour of speech is the first of speechocean762 (read sentences, many speakers), the noise
# every ../shared/data/noise recording looped, the silence white noise 60 dB down: made once with
# sox into .build-bench/. The machine's other jobs move CPU times little, wall times a lot.
set -euo pipefail
cd "$(dirname "$0")/.."
models="computer jarvis alexa hey_susi" hotword=.build/release/hotword
while (($#)); do
  case $1 in
    --models) models=$2; shift 2 ;;
    --hotword) hotword=$2; shift 2 ;;
    *) sed -n '9p' "$0" | sed 's/^# *//' >&2; exit 64 ;;
  esac
done
S=../shared/data bench=.build-bench
mkdir -p "$bench"
[ -x "$hotword" ] || swift build -c release --product hotword

# microWakeWord's nearest model to each of ours (it has no "computer" or "hey susi": okay_nabu,
# a two-word phrase, stands in; the cost of its network is the same for every word).
declare -A reference=([computer]=okay_nabu [jarvis]=hey_jarvis [alexa]=alexa [hey_susi]=okay_nabu)
venv=$bench/venv
if ! "$venv/bin/python" -c 'import pymicro_wakeword' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check pymicro-wakeword==2.5.0
fi

made() {  # file command…: runs the command, which writes FILE.partial.wav, and keeps it as FILE
  local file=$1; shift
  [ -f "$file" ] && return
  "$@" && mv "$file.partial.wav" "$file"
}
made "$bench/speech.wav" sox "$S"/speech/speechocean762/*.flac -r 16000 -c 1 -b 16 "$bench/speech.wav.partial.wav" trim 0 3600
made "$bench/noise-once.wav" sox "$S"/noise/*.flac -r 16000 -c 1 -b 16 "$bench/noise-once.wav.partial.wav"
made "$bench/noise.wav" sox "$bench/noise-once.wav" "$bench/noise.wav.partial.wav" repeat 100 trim 0 3600
made "$bench/silence.wav" sox -n -r 16000 -c 1 -b 16 "$bench/silence.wav.partial.wav" synth 3600 whitenoise vol 0.001

cat > "$bench/mww.py" <<'EOF'
"""Every 10 ms of a WAV through microWakeWord's features and model, as a live stream: prints detections."""
import sys, wave
from pymicro_wakeword import MicroWakeWord, MicroWakeWordFeatures, Model
model, features, detections = MicroWakeWord.from_builtin(Model(sys.argv[1])), MicroWakeWordFeatures(), 0
with wave.open(sys.argv[2], "rb") as audio:
    while chunk := audio.readframes(1600):
        for frame in features.process_streaming(chunk):
            detections += bool(model.process_streaming(frame))
print(detections)
EOF

measure() {  # command… → "user+system seconds, peak MiB, detections"
  local out; out=$(mktemp)
  /usr/bin/time -f '%U %S %M' -o "$out.time" "$@" > "$out" 2>/dev/null
  awk -v d="$(grep -c . "$out" || true)" '{ printf "%.1f %.0f %s\n", $1 + $2, $3 / 1024, d }' "$out.time"
  rm -f "$out" "$out.time"
}
measure_mww() {  # model file → like measure, detections as microWakeWord counted them
  local out; out=$(mktemp)
  /usr/bin/time -f '%U %S %M' -o "$out.time" "$venv/bin/python" "$bench/mww.py" "$1" "$2" > "$out" 2>/dev/null
  awk -v d="$(cat "$out")" '{ printf "%.1f %.0f %s\n", $1 + $2, $3 / 1024, d }' "$out.time"
  rm -f "$out" "$out.time"
}

printf '| model | audio (1 h) | hotword: CPU s, peak MiB, detections | microWakeWord (model): CPU s, peak MiB, detections | hotword / microWakeWord |\n|---|---|---|---|---|\n'
for model in $models; do
  for audio in speech noise silence; do
    read -r ours ours_mib ours_detections < <(measure "$hotword" detect "$bench/$audio.wav" --model "$model" --no-check-phrase)
    read -r theirs theirs_mib theirs_detections < <(measure_mww "${reference[$model]}" "$bench/$audio.wav")
    ratio=$(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.3f", a / b }')
    printf '| %s | %s | %s, %s, %s | %s, %s, %s (%s) | **%s** |\n' "$model" "$audio" "$ours" "$ours_mib" "$ours_detections" \
      "$theirs" "$theirs_mib" "$theirs_detections" "${reference[$model]}" "$ratio"
  done
done
