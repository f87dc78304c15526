#!/usr/bin/env python3
"""Sums a meson test log into one line "N passed, N failed, N skipped".

doctest executables report their own case counts; any other test counts as one.
"""
import json
import re
import sys

DOCTEST = re.compile(r"\[doctest\] test cases:\s*(\d+) \|\s*(\d+) passed \|\s*(\d+) failed \|\s*(\d+) skipped")


def main(paths):
    passed = failed = skipped = 0
    for path in paths:
        try:
            log = open(path, encoding="utf-8")
        except OSError:
            print(f"count_tests: no test log at {path} (the build failed?)", file=sys.stderr)
            failed += 1
            continue
        with log:
            for line in log:
                if not line.strip():
                    continue
                test = json.loads(line)
                counts = DOCTEST.findall(test.get("stdout") or "")
                if counts and test["result"] in ("OK", "FAIL", "EXPECTEDFAIL"):
                    _, p, f, s = map(int, counts[-1])
                    passed, failed, skipped = passed + p, failed + f, skipped + s
                    # A crash after the summary still fails the executable.
                    if test["result"] == "FAIL" and f == 0:
                        failed += 1
                elif test["result"] == "OK":
                    passed += 1
                elif test["result"] == "SKIP":
                    skipped += 1
                else:
                    failed += 1
    print(f"{passed} passed, {failed} failed, {skipped} skipped")


if __name__ == "__main__":
    main(sys.argv[1:])
