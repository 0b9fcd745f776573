#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages the test suite needs when they are missing:
# Chromium (browser tests, driven by Playwright), Tesseract with Spanish, Portuguese
# and English data (OCR of scanned PDFs), LibreOffice's Writer and Impress without a GUI
# (old .doc and .ppt files are converted by it) and nginx (the compose file's proxy
# configuration is tested for real). Called by `make test`; safe to run again.
set -euo pipefail

PACKAGES=(
  chromium tesseract-ocr tesseract-ocr-spa tesseract-ocr-por tesseract-ocr-eng nginx
  libreoffice-writer-nogui libreoffice-impress-nogui
)

installed() {
  [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  # Not Debian or Ubuntu: we cannot install them, only say what the tests need.
  if command -v chromium >/dev/null 2>&1 && command -v tesseract >/dev/null 2>&1 \
    && command -v nginx >/dev/null 2>&1 && command -v soffice >/dev/null 2>&1; then
    exit 0
  fi
  echo "make test needs Chromium (at /usr/bin/chromium), Tesseract with the spa, por and eng" >&2
  echo "languages, nginx and LibreOffice (soffice). This is not a Debian/Ubuntu system:" >&2
  echo "install them with your package manager." >&2
  exit 1
fi

missing=()
for package in "${PACKAGES[@]}"; do
  installed "$package" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

command_line="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  run=()
elif command -v sudo >/dev/null 2>&1 && { sudo -n true 2>/dev/null || [ -t 0 ]; }; then
  run=(sudo)  # without a password, or asking for it on this terminal
else
  echo "make test needs these system packages: ${missing[*]}" >&2
  echo "Install them as root, then run make test again:" >&2
  echo "  sudo sh -c '$command_line'" >&2
  exit 1
fi

echo "Installing the system packages the tests need: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${run[@]}" apt-get update -qq
"${run[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "Installed: ${missing[*]}"
