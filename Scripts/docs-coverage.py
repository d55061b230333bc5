#!/usr/bin/env python3
"""Fails when a public symbol of a DexKit module is undocumented or not curated.

Run by Scripts/docs.sh right after `swift package generate-documentation`, whose output it
reads (nothing is rebuilt here):

- the symbol graphs the plugin extracted (<scratch>/<triple>/extracted-symbols/<package>/<Module>/),
- each module's archive (<scratch>/plugins/Swift-DocC/outputs/intermediates/<Module>.doccarchive):
  its render JSON and DocC's documentation-coverage.json (--experimental-documentation-coverage).

Checks, per module:

1. Documented. Every public symbol declared in the module's sources has a doc comment of its
   own: one written in this module, not only the one it inherits from a protocol in another
   module. Proven twice, from the symbol graph's docComment and from DocC's coverage report
   (hasAbstract), so neither tool's blind spots pass alone. Members the compiler synthesizes
   (Equatable's !=, Codable's init(from:), a raw enum's init(rawValue:)) have no source
   location and are not the module's to document.
2. Curated. The landing page has no automatically generated Topics section (an uncurated
   top-level type, protocol, function, type alias, article or extended module would show up in
   one), and every top-level public symbol appears in a hand-written Topics group of some page
   of the module. Members may be listed by their type's automatic page.

Prints every problem found and exits 1 if there is any; prints one summary line per module
otherwise.
"""

import argparse
import glob
import json
import os
import sys

PLUGIN_OUTPUTS = os.path.join("plugins", "Swift-DocC", "outputs", "intermediates")


def fail(message):
    print(f"docs-coverage: {message}", file=sys.stderr)
    sys.exit(2)


def symbol_graph_files(scratch, module):
    """The module's symbol graphs from the newest extraction (main graph and extension graphs)."""
    directories = glob.glob(os.path.join(scratch, "*", "extracted-symbols", "*", module))
    directories = [d for d in directories if os.path.isfile(os.path.join(d, f"{module}.symbols.json"))]
    if not directories:
        fail(f"no symbol graph for {module} under {scratch}; run Scripts/docs.sh first")
    newest = max(directories, key=lambda d: os.path.getmtime(os.path.join(d, f"{module}.symbols.json")))
    return sorted(glob.glob(os.path.join(newest, "*.symbols.json")))


def load_symbols(scratch, module):
    """Symbols by precise identifier, from every graph of the module."""
    symbols = {}
    for path in symbol_graph_files(scratch, module):
        with open(path, encoding="utf-8") as file:
            graph = json.load(file)
        for symbol in graph.get("symbols", []):
            symbols[symbol["identifier"]["precise"]] = symbol
    return symbols


def display_name(symbol):
    return ".".join(symbol.get("pathComponents", [])) or symbol["names"]["title"]


def source_location(symbol):
    """file:line of a symbol declared in source, or None for compiler-synthesized members."""
    location = symbol.get("location")
    if not location or "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
        return None
    uri = location.get("uri", "")
    path = uri[len("file://"):] if uri.startswith("file://") else uri
    path = os.path.relpath(path) if os.path.isabs(path) else path
    return f"{path}:{location.get('position', {}).get('line', 0) + 1}"


def has_own_doc_comment(symbol, module):
    comment = symbol.get("docComment")
    if not comment:
        return False
    if comment.get("module") not in (None, module):
        return False  # only inherited from a requirement in another module
    return any(line.get("text", "").strip() for line in comment.get("lines", []))


def load_render_nodes(archive, module):
    """Every render JSON page of the module's archive."""
    root = os.path.join(archive, "data", "documentation")
    paths = [os.path.join(root, f"{module.lower()}.json")]
    paths += glob.glob(os.path.join(root, module.lower(), "**", "*.json"), recursive=True)
    nodes = []
    for path in paths:
        with open(path, encoding="utf-8") as file:
            nodes.append(json.load(file))
    return nodes


def check_module(scratch, module):
    problems = []
    symbols = load_symbols(scratch, module)
    declared = {usr: s for usr, s in symbols.items() if source_location(s)}

    archive = os.path.join(scratch, PLUGIN_OUTPUTS, f"{module}.doccarchive")
    if not os.path.isdir(archive):
        fail(f"no documentation archive for {module} at {archive}; run Scripts/docs.sh first")
    nodes = load_render_nodes(archive, module)
    url_to_usr = {}
    usr_to_url = {}
    for node in nodes:
        usr = node.get("metadata", {}).get("externalID")
        if usr:
            url_to_usr[node["identifier"]["url"]] = usr
            usr_to_url[usr] = node["identifier"]["url"]

    # 1. Documented, from the symbol graph.
    for usr, symbol in sorted(declared.items(), key=lambda item: display_name(item[1])):
        if not has_own_doc_comment(symbol, module):
            problems.append(
                f"{module}: {display_name(symbol)} ({source_location(symbol)}) has no doc comment")

    # 1. Documented, from DocC's own coverage report.
    coverage_path = os.path.join(archive, "documentation-coverage.json")
    if not os.path.isfile(coverage_path):
        fail(f"{coverage_path} is missing; build with --experimental-documentation-coverage")
    with open(coverage_path, encoding="utf-8") as file:
        coverage = json.load(file)
    for entry in coverage:
        if not entry.get("kind", {}).get("isSymbol") or entry.get("hasAbstract"):
            continue
        usr = url_to_usr.get(entry.get("referencePath"))
        if usr in declared:
            problems.append(
                f"{module}: DocC finds no abstract for {display_name(declared[usr])} "
                f"({source_location(declared[usr])})")

    # 2. Curated: no generated Topics section on the landing page.
    landing_url = f"doc://{module}/documentation/{module}"
    landing = next((n for n in nodes if n["identifier"]["url"] == landing_url), None)
    if landing is None:
        fail(f"{module}: no landing page in {archive}")
    for section in landing.get("topicSections", []):
        if section.get("generated"):
            for identifier in section.get("identifiers", []):
                name = identifier.rsplit("/", 1)[-1]
                problems.append(
                    f"{module}: {name} is not curated: the landing page lists it in a generated "
                    f"'{section.get('title', 'Topics')}' section; add it to a Topics group of "
                    f"Sources/{module}/{module}.docc/{module}.md")

    # 2. Curated: every top-level symbol in a hand-written group somewhere in the module.
    curated = set()
    for node in nodes:
        for section in node.get("topicSections", []):
            if not section.get("generated"):
                curated.update(section.get("identifiers", []))
    top_level = [s for s in declared.values() if len(s.get("pathComponents", [])) == 1]
    for symbol in sorted(top_level, key=display_name):
        url = usr_to_url.get(symbol["identifier"]["precise"])
        if url is None:
            problems.append(f"{module}: {display_name(symbol)} has no page in the archive")
        elif url not in curated:
            problems.append(
                f"{module}: {display_name(symbol)} is in no hand-written Topics group "
                f"(Sources/{module}/{module}.docc)")

    summary = (f"{module}: {len(declared)} public symbols documented, "
               f"{len(top_level)} top-level symbols curated")
    return problems, summary


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scratch-path", default=".build-docs")
    parser.add_argument("modules", nargs="+")
    arguments = parser.parse_args()

    all_problems = []
    summaries = []
    for module in arguments.modules:
        problems, summary = check_module(arguments.scratch_path, module)
        all_problems += problems
        summaries.append(summary)
    if all_problems:
        for problem in all_problems:
            print(problem, file=sys.stderr)
        print(f"docs-coverage: {len(all_problems)} problem(s)", file=sys.stderr)
        return 1
    for summary in summaries:
        print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
