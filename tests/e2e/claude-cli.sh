# Sourced by scripts/validate-plugin and scripts/e2e: installs a pinned Claude Code CLI from npm into
# <repo>/.cache/claude-code/<version>/ (git-ignored) and sets CLAUDE_BIN to it.
#
# The version is pinned because the CLI's behaviour (validator messages, hook payloads) changes from one
# release to the next; 2.1.197 is the newest release whose package allows Node 20. Override with
# CLAUDE_CODE_VERSION=x.y.z (a newer one installs with an EBADENGINE warning: its binary is native).
# Any failure is fatal and loud: a missing CLI must never look like a passing check.

CLAUDE_CODE_VERSION=${CLAUDE_CODE_VERSION:-2.1.197}

# install_claude_cli REPO_ROOT -> sets CLAUDE_BIN, or exits non-zero with the reason
install_claude_cli() {
  local root=$1
  local prefix="$root/.cache/claude-code/$CLAUDE_CODE_VERSION"
  CLAUDE_BIN="$prefix/node_modules/.bin/claude"
  if [ -x "$CLAUDE_BIN" ] && "$CLAUDE_BIN" --version 2>/dev/null | grep -qF "$CLAUDE_CODE_VERSION"; then
    return 0
  fi
  if ! command -v npm >/dev/null 2>&1; then
    echo "FATAL: npm not found on PATH: cannot install @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" >&2
    exit 1
  fi
  echo "installing @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION into $prefix ..." >&2
  mkdir -p "$prefix"
  # Its own package.json keeps npm from climbing up to an unrelated one.
  [ -f "$prefix/package.json" ] || echo '{"name":"claude-code-pin","private":true}' > "$prefix/package.json"
  if ! timeout 900 npm install --prefix "$prefix" --no-audit --no-fund --no-save \
      "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" >"$prefix/npm-install.log" 2>&1; then
    echo "FATAL: npm install @anthropic-ai/claude-code@$CLAUDE_CODE_VERSION failed; last lines of $prefix/npm-install.log:" >&2
    tail -n 20 "$prefix/npm-install.log" >&2
    exit 1
  fi
  local got
  if ! got=$(timeout 60 "$CLAUDE_BIN" --version 2>&1) || ! printf '%s' "$got" | grep -qF "$CLAUDE_CODE_VERSION"; then
    echo "FATAL: installed CLI at $CLAUDE_BIN does not run as $CLAUDE_CODE_VERSION: $got" >&2
    exit 1
  fi
}

# The environment every CLI call runs with: no telemetry, no updater, nothing but loopback.
claude_quiet_env() {
  export CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 \
    DISABLE_ERROR_REPORTING=1
}
