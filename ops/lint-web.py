#!/usr/bin/env python3
"""Lints the web files under Sources/ (the dashboard's page, style and script, which the EmbedFiles
plugin puts into `farm` at build time): each is read as a browser would, and what a browser would
silently repair or drop is reported.

  * .html: parsed by html5lib (PyPI), the HTML standard's parser; every parse error it reports
    (a stray or missing end tag, a bad attribute, no doctype), and an id used twice;
  * .css: parsed by tinycss2 (PyPI); every rule or declaration it cannot parse;
  * .js: `node --check` (Debian's nodejs): a syntax error.

Prints FILE:LINE:COLUMN: MESSAGE for each finding and exits 1, or exits 0. ops/lint.sh runs it
with the tests' virtual environment's Python (.build/otio-venv, made by ops/setup-tests.sh).
"""
import glob
import os
import re
import subprocess
import sys

import html5lib
import html5lib.constants
import tinycss2

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def lint_html(text):
    parser = html5lib.HTMLParser(namespaceHTMLElements=False)
    document = parser.parse(text)
    for (line, column), code, variables in parser.errors:
        message = html5lib.constants.E.get(code, code)
        try:
            message = message % variables
        except (TypeError, KeyError):
            pass
        yield line, column, message
    seen = set()
    for element in document.iter():
        identifier = element.get("id")
        if identifier is not None and identifier in seen:
            again = list(re.finditer(r"""\bid\s*=\s*["']?""" + re.escape(identifier) + r"""["'\s>]""", text))
            line = text.count("\n", 0, again[1].start()) + 1 if len(again) > 1 else 0
            yield line, 0, f"the id {identifier!r} is used twice"
        seen.add(identifier)


def css_errors(nodes):
    for node in nodes:
        if node.type == "error":
            yield node.source_line, node.source_column, node.message
        elif node.type in ("qualified-rule", "at-rule") and node.content is not None:
            yield from css_errors(
                tinycss2.parse_blocks_contents(node.content, skip_comments=True, skip_whitespace=True))


def lint_css(text):
    yield from css_errors(tinycss2.parse_stylesheet(text, skip_comments=True, skip_whitespace=True))


def lint_js(path):
    result = subprocess.run(["node", "--check", path], capture_output=True, text=True)
    if result.returncode != 0:
        # node prints "FILE:LINE" then the line, a caret and "SyntaxError: ..."
        lines = result.stderr.strip().splitlines()
        where = lines[0].rsplit(":", 1)[-1] if lines else "0"
        message = next((line for line in lines if "Error" in line), result.stderr.strip())
        yield int(where) if where.isdigit() else 0, 0, message


def main():
    files = sorted(
        path for extension in ("html", "css", "js")
        for path in glob.glob(os.path.join(ROOT, "Sources", "**", f"*.{extension}"), recursive=True))
    if not files:
        print("lint-web: no .html, .css or .js file under Sources/", file=sys.stderr)
        return 2
    findings = 0
    for path in files:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        if path.endswith(".html"):
            problems = lint_html(text)
        elif path.endswith(".css"):
            problems = lint_css(text)
        else:
            problems = lint_js(path)
        for line, column, message in problems:
            print(f"{os.path.relpath(path, ROOT)}:{line}:{column}: {message}", file=sys.stderr)
            findings += 1
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
