#!/usr/bin/env python3
"""Holds docs/architecture.md and Package.swift to the code.

Why: the architecture page is how a newcomer learns where things are, and a moved file or a
renamed type leaves it wrong without a word. This reads it against the tree and fails on:

  * modules: a library target of Package.swift missing from the page's module table, a row
    naming a module that is not a target, or a row whose folder is not the target's path;
  * imports: a target's source importing a module it does not declare (a target, a product of
    a package, or the C module it wraps), so each target's dependencies are what it uses;
  * C libraries: `import CX` outside the one target the page says owns it;
  * names: a backticked path (`Sources/...`), file name (`X.swift`) or type (`TypeName`, or the
    `TypeName` of `TypeName.member`) the page mentions that the sources do not hold.

Run from the repository root: python3 ops/check-architecture.py
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs/architecture.md"
# Modules every Swift file may import without declaring them.
TOOLCHAIN = {"Foundation", "Dispatch", "Glibc", "Synchronization", "Testing", "XCTest", "PackagePlugin"}


def closing(text, start):
    """The index of the bracket that closes the one at text[start]."""
    pairs = {"(": ")", "[": "]"}
    opening, depth = text[start], 0
    for index in range(start, len(text)):
        depth += {opening: 1, pairs[opening]: -1}.get(text[index], 0)
        if depth == 0:
            return index
    return len(text)


def targets():
    """{name: (kind, path, [dependency names])} from Package.swift's target list."""
    text = (ROOT / "Package.swift").read_text()
    aliases = dict(re.findall(r'let (\w+) = Target\.Dependency\.product\(name: "(\w+)"', text))
    found = {}
    for match in re.finditer(r"\.(target|testTarget|executableTarget|systemLibrary|plugin)\(", text):
        body = text[match.end():closing(text, match.end() - 1)]
        name = re.search(r'name: "(\w+)"', body).group(1)
        path = re.search(r'path: "([^"]+)"', body)
        deps = []
        listed = re.search(r"dependencies: \[", body)
        if listed:
            inner = body[listed.end():closing(body, listed.end() - 1)]
            deps += re.findall(r'product\(name: "(\w+)"', inner)
            inner = re.sub(r"\.product\([^)]*\)", "", inner)
            deps += re.findall(r'"(\w+)"', inner)
            deps += [aliases[word] for word in re.findall(r"\b(\w+)\b", inner) if word in aliases]
        kind = match.group(1)
        default = {"testTarget": f"Tests/{name}", "plugin": f"Plugins/{name}"}.get(kind, f"Sources/{name}")
        found[name] = (kind, path.group(1) if path else default, deps)
    return found


def imports(folder):
    """{module: [files]} of the Swift files under folder."""
    found = {}
    for file in sorted((ROOT / folder).rglob("*.swift")):
        for module in re.findall(r"^(?:@testable )?import (\w+)", file.read_text(), re.M):
            found.setdefault(module, []).append(str(file.relative_to(ROOT)))
    return found


def declared_names():
    """Every type, and every file name, the sources hold."""
    names, files = set(), set()
    for file in [f for top in ("Sources", "Plugins", "Tests") for f in (ROOT / top).rglob("*.swift")]:
        files.add(file.name)
        text = file.read_text()
        names.update(re.findall(r"\b(?:struct|class|enum|protocol|actor|typealias)\s+(\w+)", text))
    return names, files


def main():
    problems = []
    doc = DOC.read_text()
    all_targets = targets()
    libraries = {n: t for n, t in all_targets.items() if t[0] == "target" and n not in ("TestSupport", "CSpawn")}

    # The module table: `Module` | `folder` | ...
    rows = dict(re.findall(r"^\| `(\w+)` \| `([^`]+)` \|", doc, re.M))
    for name, (_, path, _) in libraries.items():
        if name not in rows:
            problems.append(f"module table: target {name} ({path}) is missing")
        elif rows[name].rstrip("/") != path:
            problems.append(f"module table: {name}'s folder is `{rows[name]}`, Package.swift says `{path}`")
    for name in rows:
        if name not in libraries:
            problems.append(f"module table: `{name}` is not a library target of Package.swift")

    # Each target imports only what it declares.
    systems = {n for n, t in all_targets.items() if t[0] == "systemLibrary"}
    owners = {}
    for name, (kind, path, deps) in all_targets.items():
        if kind in ("systemLibrary", "plugin"):
            continue
        for module, files in imports(path).items():
            if module in TOOLCHAIN or module == name:
                continue
            if module in systems or module == "CSpawn":
                owners.setdefault(module, set()).add(name)
            if module not in deps:
                problems.append(f"{name}: imports {module} ({files[0]}) without declaring it in Package.swift")

    # The C libraries' one importer each, as the page's checks say.
    for module, folder in re.findall(r"`import (C\w+)` (?:appears )?only in\s+`([^`]+)`", doc):
        folders = {all_targets[t][1] for t in owners.get(module, ())}
        if folders and folders != {folder}:
            problems.append(f"`import {module}`: the page says only {folder}, the code has {sorted(folders)}")

    # Every name the page gives exists.
    types, files = declared_names()
    for token in sorted(set(re.findall(r"`([^`\n]+)`", doc))):
        if token.startswith(("Sources/", "Tests/", "Plugins/", "ops/", "docs/")) and not re.search(r"[ <*]", token):
            if not (ROOT / token.split(":")[0]).exists():
                problems.append(f"names `{token}`, which does not exist")
        elif re.fullmatch(r"[A-Za-z+]+\.swift", token):
            if token not in files:
                problems.append(f"names `{token}`, which no folder of Sources holds")
        elif re.fullmatch(r"[A-Z][A-Za-z0-9]+(?:\.[a-z]\w*(?:\(.*\))?)?", token) and token.split(".")[0] not in rows:
            head = token.split(".")[0]
            # FFmpeg's own types (AVFrame, AVIOContext) are the C library's.
            if head not in types and head not in all_targets and not head.startswith("AV"):
                problems.append(f"names the type `{head}`, which the sources do not declare")

    for problem in problems:
        print(f"check-architecture: {problem}", file=sys.stderr)
    if problems:
        print(f"check-architecture: {len(problems)} problem(s) in {DOC.relative_to(ROOT)} or Package.swift", file=sys.stderr)
        return 1
    print(f"check-architecture: {len(libraries)} modules, their imports and the page's names agree with the code")
    return 0


if __name__ == "__main__":
    sys.exit(main())
