"""Bench data, made at bench time into a temp dir (never committed).

* `store(path, n)`: a signals.jsonl of `n` realistic schema-v1 signals, written the way the Rust store
  writes them (compact JSON, schema field order): sessions of 10-90 signals across a dozen projects over the
  last 45 days, file order chronological, statuses by age (recent ones mostly captured), the type mix a
  real store has (failures most), meta.dedup_key on every line, and recurrence records for ~3% of lines.
* `transcript(path, size, corpus)`: one long session assembled from the real transcripts in `corpus` by
  concatenation, repeated until `size` bytes, with `sessionId` made one and every uuid made unique per
  repetition (so a reader sees one session with no replayed entries). Line numbers follow from position.
* `sessions(config_dir, project, corpora, n, days)`: a heavy user's month in one project: `n` real
  transcripts picked (seeded) from the `corpora` dirs, copied where Claude Code keeps them
  (`<config>/projects/<project slug>/<uuid>.jsonl`), last changed across the last `days` days.
"""

import json
import os
import random
import re
from datetime import datetime, timedelta, timezone

# The baseline's own key, so generated stores dedup as the Python memory-store (and ours) would.
from memory_store import dedup_key

KINDS = [
    ("failure", 35), ("correction", 15), ("convention", 8), ("preference", 6), ("command", 6),
    ("gotcha", 6), ("discovery", 6), ("pattern", 4), ("project_friction", 4), ("summary", 7),
    ("remember", 3),
]
RECENT_STATUS = [("captured", 75), ("analyzed", 15), ("dismissed", 5), ("promoted", 5)]
OLD_STATUS = [("captured", 20), ("analyzed", 35), ("promoted", 20), ("dismissed", 20), ("archived", 5)]
PROJECTS = [f"/home/dev/src/{name}" for name in (
    "api-gateway", "billing-service", "web-frontend", "infra", "mobile-app", "data-pipeline",
    "auth", "docs-site", "cli-tools", "ml-experiments", "dotfiles", "reflect")]
TOOLS = ["Bash", "Bash", "Bash", "Read", "Edit", "Write", "Grep", "Glob", "WebFetch", "Task"]
COMMANDS = ["npm test", "cargo build --release", "pytest -x tests/", "make lint", "git push origin main",
            "docker compose up -d", "pnpm install", "go test ./...", "terraform plan", "yarn build"]
FILES = ["src/main.rs", "src/lib/parser.ts", "README.md", "package.json", "tests/test_api.py",
         "config/settings.yaml", "Makefile", "src/components/Button.tsx", "db/migrations/0042.sql"]
ERRORS = ["npm ERR! missing script: test", "error[E0308]: mismatched types", "ModuleNotFoundError: No module named 'yaml'",
          "File does not exist.", "String to replace not found in file.", "fatal: could not read Username",
          "permission denied", "command not found: pnpm", "FAILED tests/test_api.py::test_login - AssertionError",
          "Error: connect ECONNREFUSED 127.0.0.1:5432"]
SAYINGS = {
    "correction": ["No, use {tool} instead of {other}", "That's wrong: the config lives in {file}",
                   "Don't edit {file}, it is generated", "Stop running {cmd} on every change"],
    "convention": ["Tests go next to the code in {file}", "We use conventional commits in this repo",
                   "Always run `{cmd}` before pushing", "Name branches feature/<ticket>"],
    "preference": ["Prefer small focused commits", "Keep answers short, no summaries at the end",
                   "Use {tool} for package management", "I like early returns over nested ifs"],
    "command": ["Build with `{cmd}`", "Lint with `{cmd}`", "Run the dev server with `{cmd}`"],
    "gotcha": ["{file} is loaded before the env file, so defaults win", "The test DB must be migrated by hand",
               "CI runs on Node 18, not 20"],
    "discovery": ["The API client retries 3 times by default", "{file} holds the feature flags",
                  "Logs go to /var/log/app, not stdout"],
    "pattern": ["Errors are wrapped with context at every layer", "Handlers validate input first, then call a service"],
    "project_friction": ["The build takes 6 minutes; use the incremental target",
                         "Flaky test in {file} fails one run in ten"],
    "summary": ["Session: {n} turns, tools Bash/Edit/Read, files {file}, {e} errors"],
    "remember": ["Remember: the staging DB is reset every night", "Remember to update CHANGELOG.md"],
}
TAGS = ["pnpm", "npm", "cargo", "git", "tests", "ci", "docker", "python", "rust", "typescript", "db", "config"]


def _pick(rng, weighted):
    total = sum(w for _, w in weighted)
    x = rng.uniform(0, total)
    for value, w in weighted:
        x -= w
        if x <= 0:
            return value
    return weighted[-1][0]


def _uuid(rng):
    h = "%032x" % rng.getrandbits(128)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def _fmt(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _content(rng, kind):
    if kind == "failure":
        tool = rng.choice(TOOLS)
        target = rng.choice(COMMANDS) if tool == "Bash" else rng.choice(FILES)
        err = rng.choice(ERRORS)
        head = f"Exit code 1: {err}" if tool == "Bash" else err
        return tool, f"{tool} failed: {head} (on `{target}`)", f"Tried: {target}\nError: {head}\n{err} at line {rng.randint(1, 400)}"
    text = rng.choice(SAYINGS[kind]).format(
        tool=rng.choice(["pnpm", "uv", "cargo", "bun"]), other=rng.choice(["npm", "pip", "make"]),
        file=rng.choice(FILES), cmd=rng.choice(COMMANDS), n=rng.randint(5, 80), e=rng.randint(0, 6))
    if rng.random() < 0.5:  # most sayings vary a little from one session to the next
        text += f" ({rng.choice(FILES)})"
    return None, text, f"User said: '{text}'"


def store(path, n, seed=1, now=None):
    """Write `n` signals (plus ~3% recurrence records) to `path`; returns facts the bench needs."""
    rng = random.Random(seed)
    now = now or datetime.now(timezone.utc).replace(microsecond=0)
    start = now - timedelta(days=45)
    sessions = []
    left = n
    while left > 0:
        k = min(left, rng.randint(10, 90))
        sessions.append(k)
        left -= k
    span = (now - start).total_seconds()
    written = 0
    ids_so_far = []
    last_session = None
    last_counter = {}
    with open(path, "w", encoding="utf-8") as out:
        for si, count in enumerate(sessions):
            sid = _uuid(rng)
            project = rng.choice(PROJECTS)
            t = start + timedelta(seconds=span * si / len(sessions))
            line_no = rng.randint(5, 50)
            for _ in range(count):
                t += timedelta(seconds=rng.randint(5, 120))
                kind = _pick(rng, KINDS)
                tool, content, context = _content(rng, kind)
                age = (now - t).days
                status = _pick(rng, RECENT_STATUS if age < 14 else OLD_STATUS)
                day = t.strftime("%Y%m%d")
                micros = (t.hour * 3600 + t.minute * 60 + t.second) * 1_000_000
                micros = max(micros, last_counter.get(day, -1) + 1)
                last_counter[day] = micros
                sig_id = f"SIG-{day}-{micros:010x}"
                line_no += rng.randint(3, 40)
                meta = {}
                if kind == "failure":
                    meta["tool"] = tool
                    meta["tool_use_id"] = "toolu_" + "%024x" % rng.getrandbits(96)
                    hook = "PostToolUseFailure"
                    source = {"hook": hook, "line": None, "uuid": None, "turn": None, "file": None}
                    category, tags = "tool-failure", [tool.lower()]
                else:
                    hook = "SessionEnd" if kind == "summary" else "PreCompact"
                    source = {"hook": hook, "line": line_no, "uuid": _uuid(rng), "turn": line_no // 7, "file": None}
                    category = rng.choice(["command", "style", "workflow", "testing", None])
                    tags = rng.sample(TAGS, rng.randint(0, 2))
                if status == "analyzed" and age > 30:
                    meta["needs_review"] = True
                if rng.random() < 0.08:
                    meta["seen"] = rng.randint(2, 5)
                meta["dedup_key"] = dedup_key(kind, project, content)
                confidence = rng.choice([1, 1, 1, 2, 2, 3]) if "seen" not in meta else min(3, meta["seen"])
                if status == "promoted":
                    confidence = 4 if rng.random() < 0.3 else confidence
                sig = {
                    "id": sig_id, "version": 1, "timestamp": _fmt(t), "session_id": sid, "project": project,
                    "type": kind, "status": status, "confidence": confidence, "source": source,
                    "content": content, "context": context, "category": category, "tags": tags,
                    "related": [], "promoted_to": (f"{project}/CLAUDE.md" if status == "promoted" else None),
                    "meta": meta,
                }
                out.write(json.dumps(sig, ensure_ascii=False, separators=(",", ":")) + "\n")
                ids_so_far.append(sig_id)
                written += 1
                if rng.random() < 0.03 and ids_so_far:
                    target = ids_so_far[max(0, len(ids_so_far) - rng.randint(1, 150))]
                    rec = {"recur": target, "timestamp": _fmt(t), "session_id": sid,
                           "source": {"hook": "PreCompact", "line": line_no + 1, "uuid": _uuid(rng),
                                      "turn": None, "file": None}}
                    out.write(json.dumps(rec, separators=(",", ":")) + "\n")
            last_session = (sid, project)
    return {"signals": written, "sessions": len(sessions), "last_session": last_session[0],
            "last_project": last_session[1], "bytes": os.path.getsize(path)}


_IDS = re.compile(rb'"(sessionId|uuid|parentUuid|leafUuid|logicalParentUuid)":"([^"]*)"')


def transcript(path, size, corpus, session="bench-transcript-session"):
    """Concatenate the real transcripts in `corpus` (sorted), repeated until `size` bytes."""
    files = sorted(os.path.join(corpus, f) for f in os.listdir(corpus) if f.endswith(".jsonl"))
    chunks = []
    for f in files:
        with open(f, "rb") as fh:
            data = fh.read()
        if not data.endswith(b"\n"):
            data += b"\n"
        chunks.append(data)
    sid = session.encode()
    written = 0
    rep = 0
    with open(path, "wb") as out:
        while written < size:
            tag = b"%04x" % (rep & 0xFFFF)

            def swap(m, tag=tag):
                key, value = m.group(1), m.group(2)
                if key == b"sessionId":
                    return b'"sessionId":"' + sid + b'"'
                if len(value) >= 8:
                    value = value[:-4] + tag
                return b'"' + key + b'":"' + value + b'"'

            for data in chunks:
                data = _IDS.sub(swap, data)
                out.write(data)
                written += len(data)
                if written >= size:
                    break
            rep += 1
    return {"bytes": written, "lines": sum(1 for _ in open(path, "rb"))}


def sessions(config_dir, project, corpora, n=200, days=30, seed=3, now=None):
    """`n` real sessions of `project` over `days` days; returns [(session id, transcript path)] and bytes."""
    rng = random.Random(seed)
    files = sorted(os.path.join(d, f) for d in corpora for f in os.listdir(d) if f.endswith(".jsonl"))
    picked = rng.sample(files, min(n, len(files)))
    slug = re.sub(r"[^A-Za-z0-9]", "-", project)
    folder = os.path.join(config_dir, "projects", slug)
    os.makedirs(folder, exist_ok=True)
    now = now or datetime.now(timezone.utc).timestamp()
    out, total = [], 0
    for f in picked:
        sid = _uuid(rng)
        path = os.path.join(folder, f"{sid}.jsonl")
        with open(f, "rb") as src, open(path, "wb") as dst:
            data = src.read()
            dst.write(data)
            total += len(data)
        when = now - rng.uniform(0, days * 86400)
        os.utime(path, (when, when))
        out.append((sid, path))
    return out, total


if __name__ == "__main__":
    import sys
    what, dest = sys.argv[1], sys.argv[2]
    if what == "store":
        print(json.dumps(store(dest, int(sys.argv[3]))))
    else:
        print(json.dumps(transcript(dest, int(sys.argv[3]), sys.argv[4])))
