#!/usr/bin/env bash
# Builds the replica-guard container image without a container engine, with buildah from
# Debian's packages; the same image as the Dockerfile, whose build stage calls `rootfs` below.
#
#   scripts/image.sh [--build-dir DIR | --binary FILE] [--output FILE] [--tag NAME:TAG]
#       release-builds the binary with meson (DIR, default build-image) -- or takes an already
#       built one with --binary (CI reuses its test build's: -O2 without debug info; the image
#       gets it stripped) --, stages its file tree, commits it with buildah (vfs storage, chroot
#       isolation, in a throwaway storage root), writes an OCI archive (default
#       DIR/replica-guard-VERSION.oci.tar, or next to --binary), then proves it: the binary
#       starts inside the image as the non-root user, and skopeo shows the user and the
#       entrypoint. Needs root, buildah and skopeo. Load it elsewhere with e.g.
#       `skopeo copy oci-archive:FILE docker-daemon:replica-guard:VERSION`.
#   scripts/image.sh rootfs BINARY DIR
#       stages the image's file tree into DIR: the stripped binary, the shared libraries ldd
#       says it needs (and the Debian packages' copyright and status entries), CA certificates,
#       a non-root user (UID/GID 65532) and /tmp. Nothing else: no shell, no package manager.
set -euo pipefail

script=$(readlink -f "$0")
readonly script
readonly binary_in_image=/usr/local/bin/replica-guard
readonly uid=65532

die() {
  echo "image.sh: $*" >&2
  exit 1
}

# Records PACKAGE in the staged tree as scanners expect from a distroless image: its status
# paragraph under /var/lib/dpkg/status.d/ and its copyright file.
record_package() {
  local package=$1 dir=$2 name=${1%%:*}
  [[ -e "$dir/var/lib/dpkg/status.d/$name" ]] && return 0
  dpkg-query -s "$package" >"$dir/var/lib/dpkg/status.d/$name"
  if [[ -f "/usr/share/doc/$name/copyright" ]]; then
    install -D -m 0644 "/usr/share/doc/$name/copyright" "$dir/usr/share/doc/$name/copyright"
  fi
}

stage_rootfs() {
  local binary=$1 dir=$2 lib package candidate line
  [[ -x "$binary" ]] || die "rootfs: '$binary' is not an executable file (build it first)"
  command -v ldd >/dev/null || die "rootfs: ldd not found (install libc-bin)"
  mkdir -p "$dir"
  [[ -z "$(ls -A "$dir")" ]] || die "rootfs: '$dir' is not empty"

  # Debian 12's merged /usr: /lib and /lib64 are links into /usr.
  mkdir -p "$dir"/usr/{lib,lib64,local/bin} "$dir"/{etc,var/lib/dpkg/status.d,home/nonroot}
  ln -s usr/lib "$dir/lib"
  ln -s usr/lib64 "$dir/lib64"
  install -d -m 1777 "$dir/tmp"

  install -m 0755 "$binary" "$dir$binary_in_image"
  strip --strip-unneeded "$dir$binary_in_image"

  # Every library the dynamic loader resolves, and the loader itself, at its path under /usr.
  local libs
  libs=$(ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
  [[ -n "$libs" ]] || die "rootfs: ldd found no shared libraries in '$binary' (a static binary?)"
  if grep -q 'not found' <<<"$(ldd "$binary")"; then
    die "rootfs: ldd cannot resolve every library of '$binary': $(ldd "$binary" | grep 'not found')"
  fi
  # The Debian package owning each library, from one dpkg-query call (each call reads every
  # package's file list, about a second); ldd may print /lib/... or /usr/lib/... for one file.
  local -A owner=()
  local candidates=()
  for lib in $libs; do candidates+=("$lib" "${lib#/usr}" "/usr$lib"); done
  while IFS= read -r line; do
    [[ "$line" == diversion* ]] && continue
    package=${line%%: *}
    owner[${line#*: }]=${package%%,*}
  done < <(dpkg-query -S "${candidates[@]}" 2>/dev/null || true)
  for lib in $libs; do
    local target="$dir/usr${lib#/usr}"
    install -D -m 0755 "$(readlink -f "$lib")" "$target"
    package=""
    for candidate in "$lib" "${lib#/usr}" "/usr$lib"; do
      package=${package:-${owner[$candidate]:-}}
    done
    [[ -n "$package" ]] || die "rootfs: no Debian package owns $lib"
    record_package "$package" "$dir"
  done

  # CA certificates, where Debian's OpenSSL looks for them.
  if [[ -f /etc/ssl/certs/ca-certificates.crt ]]; then
    install -D -m 0644 /etc/ssl/certs/ca-certificates.crt "$dir/etc/ssl/certs/ca-certificates.crt"
    mkdir -p "$dir/usr/lib/ssl"
    ln -s /etc/ssl/certs "$dir/usr/lib/ssl/certs"
    ln -s /etc/ssl/certs/ca-certificates.crt "$dir/usr/lib/ssl/cert.pem"
    record_package ca-certificates "$dir"
  fi
  install -m 0644 /etc/os-release "$dir/etc/os-release"

  printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n' \
    "$uid" "$uid" >"$dir/etc/passwd"
  printf 'root:x:0:\nnonroot:x:%d:\n' "$uid" >"$dir/etc/group"
  chown "$uid:$uid" "$dir/home/nonroot" 2>/dev/null || true
}

# Globals of the build, for the exit trap.
work=""
container=""
storage=()
cleanup() {
  if [[ -n "$container" ]]; then
    buildah "${storage[@]}" umount "$container" >/dev/null 2>&1 || true
    buildah "${storage[@]}" rm "$container" >/dev/null 2>&1 || true
  fi
  if [[ -n "$work" ]]; then rm -rf "$work"; fi
}

project_version() {
  sed -n "s/^ *version *: *'\([^']*\)'.*/\1/p" meson.build | head -n1
}

build_image() {
  local builddir=build-image binary="" output="" tag=""
  while (($#)); do
    case "$1" in
      --build-dir) builddir=${2:?--build-dir needs a folder}; shift 2 ;;
      --binary) binary=${2:?--binary needs the replica-guard executable}; shift 2 ;;
      --output) output=${2:?--output needs a file}; shift 2 ;;
      --tag) tag=${2:?--tag needs NAME:TAG}; shift 2 ;;
      -h | --help) sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$script"; exit 0 ;;
      *) die "unknown argument '$1' (expected --build-dir DIR, --binary FILE, --output FILE, --tag NAME:TAG, or rootfs BINARY DIR)" ;;
    esac
  done
  local version
  version=$(project_version)
  [[ -n "$version" ]] || die "cannot read the project version from meson.build"
  tag=${tag:-replica-guard:$version}
  if [[ -n "$binary" ]]; then
    binary=$(cd "$caller_dir" && readlink -f "$binary") || die "--binary: '$binary' does not exist"
  fi
  if [[ -z "$output" ]]; then
    output="${binary:+$(dirname "$binary")}"
    output="${output:-$PWD/$builddir}/replica-guard-$version.oci.tar"
  elif [[ "$output" != /* ]]; then
    output="$caller_dir/$output"
  fi

  local tools=(buildah skopeo)
  [[ -n "$binary" ]] || tools+=(meson ninja)
  for tool in "${tools[@]}"; do
    command -v "$tool" >/dev/null ||
      die "$tool not found: apt-get install -y --no-install-recommends buildah skopeo meson ninja-build"
  done
  [[ $(id -u) -eq 0 ]] || die "run as root (buildah's vfs storage and chroot isolation need it here)"

  if [[ -z "$binary" ]]; then
    echo "image.sh: release build of replica-guard $version in $builddir"
    if [[ -f "$builddir/build.ninja" ]]; then
      meson configure "$builddir" --buildtype=release >/dev/null
    else
      meson setup "$builddir" --buildtype=release >/dev/null
    fi
    ninja -C "$builddir" operator/replica-guard >/dev/null
    binary="$PWD/$builddir/operator/replica-guard"
  fi
  [[ -x "$binary" ]] || die "'$binary' is not an executable file"
  if ldd "$binary" | grep -Eq 'lib(a|ub|t)san'; then
    die "'$binary' is a sanitizer build: its runtime needs /proc and its own libraries; use a normal build"
  fi
  local built
  built=$("$binary" --version 2>&1) || die "'$binary' --version failed: $built"
  [[ "$built" == *"$version"* ]] || die "'$binary' is version '$built', the sources are $version: rebuild it"

  # A throwaway storage root: nothing is left behind but the archive.
  work=$(mktemp -d)
  export STORAGE_DRIVER=vfs BUILDAH_ISOLATION=chroot
  storage=(--root "$work/storage" --runroot "$work/run" --storage-driver vfs)
  trap cleanup EXIT

  stage_rootfs "$binary" "$work/rootfs"

  container=$(buildah "${storage[@]}" from --name replica-guard-build scratch)
  local mountpoint
  mountpoint=$(buildah "${storage[@]}" mount "$container")
  cp -a "$work/rootfs/." "$mountpoint/"
  buildah "${storage[@]}" umount "$container" >/dev/null
  buildah "${storage[@]}" config \
    --os linux --arch "$(dpkg --print-architecture)" \
    --user "$uid:$uid" \
    --entrypoint "[\"$binary_in_image\"]" --cmd '' \
    --env PATH=/usr/local/bin:/usr/bin \
    --env GLIBC_TUNABLES=glibc.malloc.hugetlb=1 \
    --workingdir / \
    --created-by "scripts/image.sh: the release binary and its ldd-derived Debian libraries" \
    --port 8443/tcp --port 8081/tcp \
    --label org.opencontainers.image.title=replica-guard \
    --label org.opencontainers.image.description="Keeps opted-in Deployments at their serving replicas when nodes fail" \
    --label org.opencontainers.image.version="$version" \
    --label org.opencontainers.image.licenses=Apache-2.0 \
    "$container"
  buildah "${storage[@]}" commit --quiet --format oci "$container" "$tag" >/dev/null
  mkdir -p "$(dirname "$output")"
  rm -f "$output"
  buildah "${storage[@]}" push --quiet "$tag" "oci-archive:$output:$tag"

  echo "image.sh: proving the image"
  # The binary starts inside the image's own file tree, as the image's user.
  # buildah 1.28's chroot isolation now and then loses the output of a process that exits at
  # once (exit status 0, nothing printed; seen twice in ~70 runs under load): ask up to 3 times.
  local started status attempt
  for attempt in 1 2 3; do
    started=$(buildah "${storage[@]}" run --user "$uid:$uid" "$container" -- "$binary_in_image" --version 2>&1) &&
      status=0 || status=$?
    [[ $status -ne 0 || -n "$started" ]] && break
    echo "  buildah run printed nothing (attempt $attempt); again"
  done
  if ((status == 0)); then
    echo "  buildah run: $binary_in_image --version -> $started"
  else
    echo "  buildah run failed here ($started); chroot into the mounted image instead"
    mountpoint=$(buildah "${storage[@]}" mount "$container")
    started=$(chroot --userspec="$uid:$uid" "$mountpoint" "$binary_in_image" --version)
    buildah "${storage[@]}" umount "$container" >/dev/null
    echo "  chroot: $binary_in_image --version -> $started"
  fi
  [[ "$started" == *"$version"* ]] || die "the image's binary printed '$started', not version $version"

  local config
  config=$(skopeo inspect --config "oci-archive:$output")
  python3 - "$config" "$uid" "$binary_in_image" <<'EOF'
import json, sys
config, uid, entrypoint = json.loads(sys.argv[1])["config"], sys.argv[2], sys.argv[3]
user = config.get("User", "")
if not user or user.split(":")[0] in ("", "0", "root"):
    sys.exit(f"image.sh: the image runs as '{user}', not a non-root user")
if config.get("Entrypoint") != [entrypoint]:
    sys.exit(f"image.sh: the image's entrypoint is {config.get('Entrypoint')}, not [{entrypoint}]")
print(f"  skopeo inspect: User={user} Entrypoint={config['Entrypoint']}")
EOF
  echo "image.sh: wrote $output ($(du -h "$output" | cut -f1)): $tag"
}

if [[ "${1:-}" == rootfs ]]; then
  (($# == 3)) || die "usage: image.sh rootfs BINARY DIR"
  stage_rootfs "$2" "$3"
else
  caller_dir=$PWD
  cd "$(dirname "$script")/.."
  build_image "$@"
fi
