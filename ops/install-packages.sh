#!/usr/bin/env bash
# Installs those of the named Debian packages that are missing, and nothing when none is:
#   bash ops/install-packages.sh WHO PACKAGE...   (WHO names the caller in the message)
set -euo pipefail
who="$1"
shift
missing=()
for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
((${#missing[@]})) || exit 0
echo "$who: installing ${missing[*]}" >&2
sudo=""
[[ $(id -u) -eq 0 ]] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
