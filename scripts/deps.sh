#!/usr/bin/env bash
# Installs the Debian packages hotword builds against and tests with, when any is missing.
set -euo pipefail
packages=(
  libasound2-dev alsa-utils          # ALSA capture and playback (alsa-utils: arecord/aplay for tests and users)
  libfftw3-dev                       # FFT for the feature frontend
  libsndfile1-dev libsamplerate0-dev # reading/writing audio files, sample-rate conversion
  libcurl4-openssl-dev               # HTTP: SUSI server, HTTP speech-to-text, corpus downloads
  libsqlite3-dev                     # the conversation history (SQLite, through GRDB)
  libssl-dev                         # SHA-256 and MD5 of downloaded corpora (libcrypto)
  libarchive-dev                     # unpacking downloaded corpora (tar.gz, zip)
  libpocketsphinx-dev pocketsphinx-en-us  # embedded offline speech-to-text
  libespeak-ng-dev espeak-ng         # embedded text-to-speech and synthetic training voices
  flite                              # more synthetic training voices
  festival festvox-kallpc16k festvox-kdlpc16k festvox-us-slt-hts  # hotword synthesize: festival voices (kal, ked diphones; slt HMM)
  pocketsphinx                       # pocketsphinx_batch checks synthetic clips (hotword synthesize); pocketsphinx_continuous tests the command STT backend
  sox libsox-fmt-base                # tests: an independent encoder/decoder (FLAC, OGG, WAV) to check our audio files against
  libopenblas-dev                    # matrix products (cblas_sgemm) for training keyword networks
  systemd                            # tests: systemd-analyze verify checks the service units in systemd/
  time                               # GNU time: wall, CPU and peak memory in scripts/measure-enroll.sh
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi
