#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks, then runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
swift build --build-tests
swift test --skip-build "$@"
