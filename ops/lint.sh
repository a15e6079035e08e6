#!/usr/bin/env bash
# The style check `ops/test.sh` runs first: swift-format's rules from .swift-format, lines of at
# most 120 columns (the formatter leaves long string literals alone, so they are counted here), and
# the dashboard's web files (ops/lint-web.py).
set -euo pipefail
cd "$(dirname "$0")/.."

status=0
if swift format --version >/dev/null 2>&1; then
    swift format lint --strict --recursive Sources Tests Plugins Package.swift || status=1
else
    echo "lint: this toolchain has no swift format; only line lengths are checked" >&2
fi
long=$(find Sources Tests Plugins Package.swift -name '*.swift' -print0 |
    xargs -0 awk 'length($0) > 120 { print FILENAME ":" FNR ": " length($0) " columns" }')
if [[ -n $long ]]; then
    echo "$long" >&2
    echo "lint: lines longer than 120 columns" >&2
    status=1
fi
# The tests run on the release build (ops/test.sh), and a release module is not compiled for
# testing: an `@testable import` anywhere breaks that build. What a test needs of a module's
# insides is `package`, visible to the package's own targets and to no user of its products.
testable=$(grep -rln '@testable import' Sources Tests Plugins 2>/dev/null || true)
if [[ -n $testable ]]; then
    echo "$testable" >&2
    echo "lint: @testable import breaks the release build the tests run on; make what the test needs \`package\`" >&2
    status=1
fi
# The dashboard's page, style and script, read as a browser reads them (ops/lint-web.py).
python=.build/otio-venv/bin/python3
if ! "$python" -c "import html5lib, tinycss2" 2>/dev/null || ! command -v node >/dev/null; then
    bash ops/setup-tests.sh >&2
fi
"$python" ops/lint-web.py || status=1
if ((status != 0)); then
    echo "lint: fix the above (swift format format --in-place FILE does most of the Swift)" >&2
fi
exit "$status"
