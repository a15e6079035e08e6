#!/usr/bin/env bash
# Installs what is missing, builds the named products in release, and prints the folder that
# holds them: bin="$(bash ops/build-release.sh farm farm-worker)".
set -euo pipefail
cd "$(dirname "$0")/.."

bash ops/setup.sh >&2
for product in "$@"; do
    swift build -c release --product "$product" >&2
done
swift build -c release --show-bin-path
