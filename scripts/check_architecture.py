#!/usr/bin/env python3
"""Fails when docs/ARCHITECTURE.md's table of targets has drifted from Package.swift.

Every library and executable target in Package.swift (test targets, plugins and the
test-support targets under Tests/ aside) must have a row in the table under "## Targets",
and that row's last column must name, each in backticks, exactly the target's
dependencies: no more, no fewer. Reads the package with `swift package dump-package`.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

root = Path(__file__).resolve().parent.parent
package = json.loads(
    subprocess.run(
        ["swift", "package", "dump-package"], cwd=root, check=True, capture_output=True, text=True
    ).stdout
)


def dependency_name(dependency):
    for kind in ("byName", "product", "target"):
        if kind in dependency:
            return dependency[kind][0]
    raise SystemExit(f"check-architecture: a dependency of an unknown kind: {dependency}")


targets = {}
for target in package["targets"]:
    if target["type"] not in ("regular", "executable"):
        continue
    if (target.get("path") or "").startswith("Tests/"):
        continue
    targets[target["name"]] = {dependency_name(d) for d in target["dependencies"]}

text = (root / "docs/ARCHITECTURE.md").read_text()
section = text.split("## Targets", 1)[1].split("\n## ", 1)[0]
rows = {}
for line in section.splitlines():
    cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
    if len(cells) < 3 or not cells[0].startswith("`"):
        continue
    rows[cells[0].strip("`")] = set(re.findall(r"`([^`]+)`", cells[-1]))

problems = []
for name, dependencies in sorted(targets.items()):
    if name not in rows:
        problems.append(f"{name}: no row in docs/ARCHITECTURE.md's table of targets")
        continue
    missing = dependencies - rows[name]
    extra = rows[name] - dependencies
    if missing:
        problems.append(f"{name}: depends on {', '.join(sorted(missing))}, which its row does not name")
    if extra:
        problems.append(f"{name}: its row names {', '.join(sorted(extra))}, which it does not depend on")
for name in sorted(set(rows) - set(targets)):
    if name != "COpenSSL":
        problems.append(f"{name}: a row in the table, but no such target in Package.swift")

if problems:
    print("check-architecture: docs/ARCHITECTURE.md's targets differ from Package.swift:")
    for problem in problems:
        print("  " + problem)
    print("Update the table (or Package.swift) so that each row names exactly its target's dependencies.")
    sys.exit(1)
print(f"check-architecture: the table names exactly the dependencies of all {len(targets)} targets")
