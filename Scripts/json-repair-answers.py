#!/usr/bin/env python3
"""Prints json_repair's reading of each case in a fixture, for the agreement check in
Tests/DexModelTests/JSONRepairAgreementTests.swift.

Usage: json-repair-answers.py CASES.json
Reads {"cases": [{"input": ...}, ...]} and prints {"version": V, "answers": [...]} where each
answer is {"value": <what json_repair.loads returns>} or {"error": "<message>"}, in case order.
Exits 3, saying so on stderr, when the PyPI package json-repair is not installed.
"""
import json
import math
import sys

try:
    import json_repair
    from importlib.metadata import version
except ImportError:
    sys.stderr.write(
        "json_repair is not installed for " + sys.executable
        + ": run `python3 -m pip install json-repair` (Scripts/bootstrap.sh does)\n")
    sys.exit(3)


def finite(value):
    """Whether every number in value is finite (JSON has no NaN or infinity)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(finite(item) for item in value)
    if isinstance(value, dict):
        return all(finite(item) for item in value.values())
    return True


def answer(text):
    try:
        value = json_repair.loads(text)
    except Exception as error:  # json_repair raises on input it gives up on
        return {"error": type(error).__name__ + ": " + str(error)}
    if not finite(value):
        return {"error": "non-finite number"}
    return {"value": value}


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: json-repair-answers.py CASES.json\n")
        return 2
    with open(sys.argv[1], encoding="utf-8") as handle:
        cases = json.load(handle)["cases"]
    answers = [answer(case["input"]) for case in cases]
    json.dump({"version": version("json-repair"), "answers": answers}, sys.stdout,
              ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
