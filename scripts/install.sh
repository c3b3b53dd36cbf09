#!/usr/bin/env bash
# Build reflect's six binaries (release; statically linked on glibc Linux: scripts/build-release), put them in
# dist/, and turn capture on.
#
#   scripts/install.sh [reflect-toggle on options]     e.g. --settings PATH, --dry-run
#
# `reflect-toggle on` then copies the binaries from dist/ into <data dir>/bin/ and registers those
# paths in settings.json, so the hooks keep working after a `cargo clean` or a moved checkout.
# To turn capture off again: `dist/reflect-toggle off` (removes our hooks and nothing else).
# Works from any directory.
set -euo pipefail

say() { printf '==> %s\n' "$*"; }

root="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd -P)"

"$root/scripts/build-release"

say "dist/reflect-toggle on $*"
"$root/dist/reflect-toggle" on "$@"
