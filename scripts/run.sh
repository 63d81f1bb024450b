#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks, builds hotword in release mode and starts listening
# on the default capture device with the default wake word ("hey susi"). Extra arguments go to
# `hotword run` (e.g. --device plughw:CARD=Device,DEV=0; see `hotword devices`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
swift build -c release
exec .build/release/hotword run "$@"
