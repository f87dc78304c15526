#!/usr/bin/env python3
"""Prints the C++ headers (*.hpp) under DIR, relative to it, one a line: what meson installs of a
library (see install/meson.build). A new header is picked up at the next meson reconfigure."""
import pathlib
import sys

root = pathlib.Path(sys.argv[1])
for path in sorted(root.rglob("*.hpp")):
    print(path.relative_to(root).as_posix())
