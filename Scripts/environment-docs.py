#!/usr/bin/env python3
"""Fails when an environment variable is read but not documented, or documented but never read.

Run by Scripts/lint.sh. The definitions, kept deliberately mechanical so the check cannot be
argued with:

- A *variable* is a name matching DEX_[A-Z0-9_]+ (DexKit's prefix).
- *Read by the shipped code*: the name is a whole Swift string literal ("DEX_STORE") in a Swift
  file under Sources/ or Examples/ outside any Tests/ directory: the SDK, the example apps and
  the proxy. (Every read in this repository goes through such a literal, directly as
  `environment["DEX_STORE"]` or through a named constant such as
  `DexCloudConfiguration.baseURLVariable`.)
- *Read anywhere*: read by the shipped code, or a whole Swift string literal in Tests/ or
  Benchmarks/, or a shell expansion ($DEX_X, ${DEX_X...}) in a script (*.sh, .ci/run).
- *Documented*: the name appears in README.md or in a DocC catalog page
  (Sources/<Module>/<Module>.docc/*.md), the two places a user reads.

Failures: a variable read by the shipped code that is not documented (a setting users cannot
find), and a documented variable that nothing reads (a setting that does nothing, for example
an old name left in the docs). Variables read only by tests and benchmarks need no user
documentation. C identifiers that share the prefix (DEX_STATUS_OK) are not string literals and
are ignored.
"""

import glob
import os
import re
import sys

NAME = r"DEX_[A-Z0-9_]+"
LITERAL = re.compile(r'"(' + NAME + r')"')
SHELL = re.compile(r"\$\{?(" + NAME + r")")
MENTION = re.compile(r"\b(" + NAME + r")\b")


def files(patterns):
    found = set()
    for pattern in patterns:
        found.update(p for p in glob.glob(pattern, recursive=True) if os.path.isfile(p))
    return sorted(p for p in found if "/.build" not in p and not p.startswith(".build"))


def names(paths, pattern):
    result = {}
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as file:
            for number, line in enumerate(file, 1):
                for name in pattern.findall(line):
                    result.setdefault(name, f"{path}:{number}")
    return result


def is_test(path):
    return "/Tests/" in f"/{path}"


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    swift = files(["Sources/**/*.swift", "Examples/**/*.swift", "Tests/**/*.swift",
                   "Benchmarks/**/*.swift"])
    shipped = [p for p in swift if p.startswith(("Sources/", "Examples/")) and not is_test(p)]
    scripts = files(["**/*.sh", ".ci/run"])
    documents = files(["README.md", "Sources/*/*.docc/*.md"])

    read_shipped = names(shipped, LITERAL)
    read_anywhere = {**names(swift, LITERAL), **names(scripts, SHELL), **read_shipped}
    documented = names(documents, MENTION)

    problems = []
    for name, where in sorted(read_shipped.items()):
        if name not in documented:
            problems.append(f"{name} is read ({where}) but documented in neither README.md "
                            "nor a DocC page")
    for name, where in sorted(documented.items()):
        if name not in read_anywhere:
            problems.append(f"{name} is documented ({where}) but nothing reads it")
    for problem in problems:
        print(f"environment-docs: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"environment-docs: {len(read_shipped)} variables read by the SDK and examples, "
          f"all documented; {len(documented)} documented, all read")
    return 0


if __name__ == "__main__":
    sys.exit(main())
