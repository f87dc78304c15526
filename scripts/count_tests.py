#!/usr/bin/env python3
"""Sums meson test logs into one line "N passed, N failed, N skipped".

  scripts/count_tests.py BUILD_DIR...   every meson-logs/testlog*.json of each build (scripts/test.sh
                                        runs the wall-clock suites apart, into testlog-wall-clock.json)

doctest executables report their own case counts; any other test counts as one. Before that line,
each failed test is named with its failed doctest cases and assertions, so that the end of a long
log (all a CI summary may keep) says what failed.
"""
import glob
import json
import os
import re
import sys

DOCTEST = re.compile(r"\[doctest\] test cases:\s*(\d+) \|\s*(\d+) passed \|\s*(\d+) failed \|\s*(\d+) skipped")
# doctest's lines that say what failed: the case (and subcase), the assertion, its values.
FAILURE_LINE = re.compile(r"^(TEST CASE:|  SUBCASE:|.*: (ERROR|FATAL ERROR): |  values: |  logged: )")
MAX_FAILURE_LINES = 30  # per test


def failure_digest(test):
    """The lines naming a failed test and what in it failed."""
    lines = [f"FAILED {test['name']} ({test['result']})"]
    found = []
    case = []  # the current case's header lines, kept only if an assertion of it failed
    for line in (test.get("stdout") or "").splitlines():
        if not FAILURE_LINE.match(line):
            continue
        if line.startswith("TEST CASE:"):
            case = [line.rstrip()]
        elif line.startswith("  SUBCASE:"):
            case.append(line.rstrip())
        else:
            found += case + [line.rstrip()]
            case = []
    if len(found) > MAX_FAILURE_LINES:
        found = found[:MAX_FAILURE_LINES] + [f"  ... {len(found) - MAX_FAILURE_LINES} more lines"]
    return lines + ["  " + line for line in found]


def logs(build_dirs):
    """The test logs of `build_dirs`; a build without its main log (testlog.json) stands for a missing
    path, which main() counts as a failure."""
    for build in build_dirs:
        main_log = os.path.join(build, "meson-logs", "testlog.json")
        yield main_log
        yield from sorted(set(glob.glob(os.path.join(build, "meson-logs", "testlog*.json"))) - {main_log})


def main(build_dirs):
    passed = failed = skipped = 0
    failures = []
    for path in logs(build_dirs):
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
                if test["result"] not in ("OK", "SKIP", "EXPECTEDFAIL"):
                    failures += failure_digest(test)
                counts = DOCTEST.findall(test.get("stdout") or "")
                if counts and test["result"] in ("OK", "FAIL", "EXPECTEDFAIL"):
                    _, p, f, s = map(int, counts[-1])
                    passed, failed, skipped = passed + p, failed + f, skipped + s
                    # A crash after the summary still fails the executable.
                    if test["result"] == "FAIL" and f == 0:
                        failed += 1
                elif test["result"] in ("OK", "EXPECTEDFAIL"):  # should_fail: it failed, as meant
                    passed += 1
                elif test["result"] == "SKIP":
                    skipped += 1
                else:
                    failed += 1
    for line in failures:
        print(line)
    print(f"{passed} passed, {failed} failed, {skipped} skipped")


if __name__ == "__main__":
    main(sys.argv[1:])
