#!/usr/bin/env bash
# Build reflect's six binaries (release), put them in dist/, and turn capture on.
#
#   scripts/install.sh [reflect-toggle on options]     e.g. --settings PATH, --dry-run
#
# `reflect-toggle on` then copies the binaries from dist/ into <data dir>/bin/ and registers those
# paths in settings.json, so the hooks keep working after a `cargo clean` or a moved checkout.
# To turn capture off again: `dist/reflect-toggle off` (removes our hooks and nothing else).
# Works from any directory.
set -euo pipefail

say() { printf '==> %s\n' "$*"; }
die() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

root="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd -P)"
bins=(capture-signals capture-failure capture-session-summary inject-signals memory-store reflect-toggle)

command -v cargo >/dev/null 2>&1 || die "cargo not found: install Rust (https://rustup.rs), then run this again"

# A relative CARGO_TARGET_DIR means "relative to where cargo runs"; cargo runs in $root below.
target="${CARGO_TARGET_DIR:-target}"
case "$target" in
    /*) ;;
    *) target="$root/$target" ;;
esac

say "building release binaries in $root (cargo build --release --locked)"
bin_args=()
for b in "${bins[@]}"; do bin_args+=(--bin "$b"); done
(cd "$root" && cargo build --release --locked "${bin_args[@]}")

say "copying ${#bins[@]} binaries to $root/dist/"
mkdir -p "$root/dist"
for b in "${bins[@]}"; do
    src="$target/release/$b"
    [ -x "$src" ] || die "$src was not built"
    # Copy beside, then rename: a hook running the old file keeps its inode.
    cp -f "$src" "$root/dist/.$b.tmp"
    chmod 0755 "$root/dist/.$b.tmp"
    mv -f "$root/dist/.$b.tmp" "$root/dist/$b"
done

say "dist/reflect-toggle on $*"
"$root/dist/reflect-toggle" on "$@"
