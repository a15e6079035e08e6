#!/usr/bin/env python3
"""Validates every examples/*.json against docs/project.schema.json.

Prints one line per file ("ok" or the first problems found) and exits 1 if any file fails,
2 if the schema itself is missing or invalid. Needs the `jsonschema` package.

The schema checks the document's shape only; `farm validate` checks everything (asset ids,
overlaps, media). A template (a root `fields`, docs/templates.md) is checked as it renders with
its defaults, since a placeholder stands where the schema wants a number; one with a field
lacking a default is checked as written, and its placeholders' positions fail.
Usage: python3 ops/check-schema.py [FILE ...]
"""
import glob
import json
import os
import re
import sys

import jsonschema

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = os.path.join(ROOT, "docs", "project.schema.json")


def json_path(error):
    path = ""
    for part in error.absolute_path:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or "(root)"


PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def with_defaults(document):
    """The template with every field's default merged as the farm merges it: a placeholder alone
    takes the value with its type, one inside text takes its text. Not a template: unchanged."""
    fields = document.get("fields") if isinstance(document, dict) else None
    if not isinstance(fields, dict) or not all(isinstance(f, dict) and "default" in f for f in fields.values()):
        return document
    values = {name: field["default"] for name, field in fields.items()}

    def merge(value, root=False):
        if isinstance(value, str):
            whole = PLACEHOLDER.fullmatch(value)
            if whole and whole.group(1) in values:
                return values[whole.group(1)]
            return PLACEHOLDER.sub(lambda m: str(values.get(m.group(1), m.group(0))), value)
        if isinstance(value, list):
            return [merge(v) for v in value]
        if isinstance(value, dict):
            return {k: (v if root and k == "fields" else merge(v)) for k, v in value.items()}
        return value

    return merge(document, root=True)


def main(argv):
    try:
        with open(SCHEMA, encoding="utf-8") as handle:
            schema = json.load(handle)
        jsonschema.Draft202012Validator.check_schema(schema)
    except (OSError, ValueError, jsonschema.SchemaError) as error:
        print(f"{os.path.relpath(SCHEMA, ROOT)}: unusable schema: {error}")
        return 2
    validator = jsonschema.Draft202012Validator(schema)

    if argv:
        files = [(file, file) for file in argv]
    else:
        found = sorted(glob.glob(os.path.join(ROOT, "examples", "*.json")))
        files = [(os.path.relpath(file, ROOT), file) for file in found]
    if not files:
        print("examples/*.json: no files found")
        return 1
    failed = 0
    for name, file in files:
        try:
            with open(file, encoding="utf-8") as handle:
                document = json.load(handle)
        except (OSError, ValueError) as error:
            print(f"{name}: FAIL: {error}")
            failed += 1
            continue
        document = with_defaults(document)
        errors = sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))
        if errors:
            failed += 1
            problems = "; ".join(f"{json_path(e)}: {e.message}" for e in errors[:3])
            more = f" (+{len(errors) - 3} more)" if len(errors) > 3 else ""
            print(f"{name}: FAIL: {problems}{more}")
        else:
            print(f"{name}: ok")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
