#!/usr/bin/env bash
# Builds farm_VERSION_amd64.deb: `farm` and `farm-worker` with the Swift runtime and Foundation
# linked in (--static-swift-stdlib), so a render node needs only Debian's own libraries; the
# package's Depends are computed from the binaries (dpkg-shlibdeps), never typed by hand.
#   bash ops/package-deb.sh [OUTPUT_DIR]      prints the .deb's path (default: .build/deb)
# The binaries are built from a copy of the committed tree (git archive HEAD) with the commit
# written in, so `farm --version` names what it was built from.
set -euo pipefail
cd "$(dirname "$0")/.."

out="$(mkdir -p "${1:-.build/deb}" && cd "${1:-.build/deb}" && pwd)"
work="$(pwd)/.build-deb"
version="$(sed -n 's/.*static let current = "\(.*\)"/\1/p' Sources/Shared/Core/Support/FarmVersion.swift)"
commit="$(git rev-parse --short=12 HEAD)"
[[ -n "$version" ]] || { echo "package-deb: no version in FarmVersion.swift" >&2; exit 1; }

bash ops/setup.sh >&2
bash ops/install-packages.sh package-deb dpkg-dev lintian libcurl4-openssl-dev >&2

# The committed tree, with the commit in BuildInfo.swift. The folder is kept between runs, so
# the build is incremental; files the commit no longer has are removed first.
mkdir -p "$work/src"
find "$work/src" -mindepth 1 -maxdepth 1 ! -name .build -exec rm -rf {} +
git archive HEAD | tar -x -C "$work/src"
sed -i "s/commit = \"unknown\"/commit = \"$commit\"/" "$work/src/Sources/Shared/Core/Support/BuildInfo.swift"
cp -f Package.resolved "$work/src/" 2>/dev/null || true
for product in farm farm-worker; do
    # FoundationNetworking (the webhook sender's URLSession), linked statically, needs libcurl.
    (cd "$work/src" && swift build -c release --static-swift-stdlib --product "$product" -Xlinker -lcurl >&2)
done
bin="$(cd "$work/src" && swift build -c release --show-bin-path)"

root="$work/root"
rm -rf "$root"
install -d "$root/DEBIAN" "$root/usr/bin" "$root/lib/systemd/system" "$root/etc/farm/keys" "$root/etc/farm/workers" \
    "$root/usr/share/doc/farm" "$root/usr/share/man/man1"
install -m 0755 "$bin/farm" "$bin/farm-worker" "$root/usr/bin/"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/farm" "$root/usr/bin/farm-worker"
install -m 0644 ops/systemd/farm-coordinator.service ops/systemd/farm-worker.service "$root/lib/systemd/system/"
install -m 0644 ops/deb/coordinator.env ops/deb/worker.env "$root/etc/farm/"
install -m 0644 docs/install.md "$root/usr/share/doc/farm/install.md"
install -m 0644 ops/deb/copyright "$root/usr/share/doc/farm/copyright"
printf 'farm (%s) stable; urgency=medium\n\n  * Built from commit %s.\n\n -- farm maintainers <maintainers@farm.example.org>  %s\n' \
    "$version" "$commit" "$(date -R -d "@$(git log -1 --format=%ct)")" | gzip -9n >"$root/usr/share/doc/farm/changelog.gz"
# Manual pages: each binary's --help, as help2man would set it out.
for program in farm farm-worker; do
    {
        printf '.TH %s 1 "" "farm %s" "User Commands"\n.SH NAME\n%s \\- ' "${program^^}" "$version" "$program"
        [[ $program == farm ]] && echo "render video-editing timelines on a farm" || echo "render chunks for a farm"
        printf '.SH DESCRIPTION\n.nf\n'
        "$root/usr/bin/$program" --help | sed 's/\\/\\\\/g; s/^\./\\\&./'
        printf '.fi\n'
    } | gzip -9n >"$root/usr/share/man/man1/$program.1.gz"
done
install -m 0755 ops/deb/postinst ops/deb/postrm "$root/DEBIAN/"
printf '/etc/farm/coordinator.env\n/etc/farm/worker.env\n' >"$root/DEBIAN/conffiles"

# Depends: what the binaries link, by dpkg-shlibdeps, and a font for titles. Recommends: a
# database, and Noto CJK, the fallback for captions in Chinese, Japanese and Korean (fonts are
# part of a worker's kind: give every worker the same).
mkdir -p "$work/shlibs/debian"
printf 'Source: farm\n\nPackage: farm\nArchitecture: amd64\n' >"$work/shlibs/debian/control"
depends="$(cd "$work/shlibs" && dpkg-shlibdeps -O "$root/usr/bin/farm" "$root/usr/bin/farm-worker" 2>/dev/null |
    sed -n 's/^shlibs:Depends=//p')"
[[ -n "$depends" ]] || { echo "package-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
size="$(du -sk --exclude=DEBIAN "$root" | cut -f1)"
cat >"$root/DEBIAN/control" <<EOF
Package: farm
Version: $version
Architecture: amd64
Maintainer: farm maintainers <maintainers@farm.example.org>
Installed-Size: $size
Depends: $depends, fonts-dejavu-core, adduser
Recommends: postgresql, fonts-noto-cjk
Section: video
Priority: optional
Homepage: https://farm.example.org/
Description: render farm for video-editing timelines
 A coordinator (farm serve) splits an edited timeline into chunks recorded in
 PostgreSQL; workers (farm-worker) on any number of machines render them over
 ZeroMQ with FFmpeg's libraries; the coordinator joins the segments into the
 final file. Also renders on one machine (farm render --local).
EOF

deb="$out/farm_${version}_amd64.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >&2
# Errors fail the build; warnings are printed.
lintian --fail-on error --suppress-tags statically-linked-binary,embedded-library "$deb" >&2
echo "$deb"
