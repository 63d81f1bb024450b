#!/usr/bin/env bash
# Installs the Python packages the tests use, when missing: the reference implementation of the
# Wyoming protocol (PyPI `wyoming`), whose client drives `hotword serve` in ServeCommandTests.
# Pinned: the tests follow this version's field names exactly (Tests/WyomingClient/wyoming_client.py).
set -euo pipefail
wyoming=1.10.2
installed=$(python3 -c 'from importlib.metadata import version; print(version("wyoming"))' 2>/dev/null || true)
if [ "$installed" != "$wyoming" ]; then
  echo "installing: wyoming==$wyoming (Python, for the Wyoming tests)"
  python3 -m pip install --quiet --disable-pip-version-check "wyoming==$wyoming"
fi
