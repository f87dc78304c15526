#!/usr/bin/env bash
# The image's file tree, as `scripts/image.sh rootfs` stages it for the Dockerfile and for
# scripts/image.sh: the binary starts in it (chroot, as the image's non-root user) with only the
# libraries staged beside it, and nothing else is there (no shell).
#   image_rootfs.sh BINARY
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "$0")/lib.sh"
binary=${1:?usage: image_rootfs.sh BINARY}
[[ $(id -u) -eq 0 ]] || { echo "SKIP: chroot needs root"; exit 77; }
command -v chroot >/dev/null || { echo "SKIP: chroot not found"; exit 77; }
if ldd "$binary" | grep -Eq 'lib(a|ub|t)san'; then
  echo "SKIP: a sanitizer build (its runtime needs /proc, which the staged tree has not)"
  exit 77
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
if ! output=$("$root/scripts/image.sh" rootfs "$binary" "$rootfs" 2>&1); then
  fail "image.sh rootfs: $output"
  finish
  exit
fi
version=$(sed -n "s/^ *version *: *'\([^']*\)'.*/\1/p" "$root/meson.build" | head -n1)

if started=$(chroot --userspec=65532:65532 "$rootfs" /usr/local/bin/replica-guard --version 2>&1) &&
  [[ "$started" == *"$version"* ]]; then
  pass "replica-guard --version in the staged tree as 65532: $started"
else
  fail "replica-guard --version in the staged tree: '$started' (expected $version)"
fi
if chroot --userspec=65532:65532 "$rootfs" /usr/local/bin/replica-guard --help >/dev/null 2>&1; then
  pass "replica-guard --help in the staged tree"
else
  fail "replica-guard --help in the staged tree"
fi
while read -r lib; do
  if [[ -e "$rootfs$lib" ]]; then pass "staged $lib"; else fail "ldd needs $lib, not staged"; fi
done < <(ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
if grep -qx 'nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin' "$rootfs/etc/passwd"; then
  pass "/etc/passwd has the non-root user 65532"
else
  fail "/etc/passwd lacks user 65532"
fi
if [[ -s "$rootfs/var/lib/dpkg/status.d/libc6" && -s "$rootfs/usr/share/doc/libc6/copyright" ]]; then
  pass "libc6's dpkg status and copyright are recorded"
else
  fail "libc6's dpkg status or copyright missing"
fi
if [[ -s "$rootfs/etc/ssl/certs/ca-certificates.crt" ]]; then pass "CA certificates"; else fail "no CA certificates"; fi
if [[ ! -e "$rootfs/bin/sh" && ! -e "$rootfs/usr/bin/sh" ]]; then pass "no shell"; else fail "a shell was staged"; fi
unexpected=$(cd "$rootfs" && find . -type f ! -path './usr/lib/*' ! -path './usr/lib64/*' \
  ! -path './usr/share/doc/*' ! -path './var/lib/dpkg/status.d/*' \
  ! -path ./usr/local/bin/replica-guard ! -path ./etc/passwd ! -path ./etc/group \
  ! -path ./etc/os-release ! -path ./etc/ssl/certs/ca-certificates.crt)
if [[ -z "$unexpected" ]]; then pass "nothing else staged"; else fail "unexpected files staged: $unexpected"; fi
# Staging into a non-empty folder is refused rather than mixed.
if "$root/scripts/image.sh" rootfs "$binary" "$rootfs" >/dev/null 2>&1; then
  fail "image.sh rootfs into a non-empty folder succeeded"
else
  pass "image.sh rootfs refuses a non-empty folder"
fi
finish
