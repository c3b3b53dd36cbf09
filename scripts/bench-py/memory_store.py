#!/usr/bin/env python3
"""The bench's Python baseline for `memory-store query|stats|append`: the same work in plain Python 3.

Written the way a careful Python author would (json per line, one pass, recurrences folded, stored lines
printed verbatim when nothing needs folding, tail-only appends under the sidecar lock), not crippled.
"""

import fcntl
import json
import os
import sys
from datetime import datetime, timedelta, timezone

STATUSES = ["captured", "analyzed", "promoted", "dismissed", "archived"]
TAIL_BYTES = 64 * 1024


def data_dir():
    if os.environ.get("REFLECT_HOME"):
        return os.environ["REFLECT_HOME"]
    config = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.environ["HOME"], ".claude")
    return os.path.join(config, "reflections")


def parse_time(text):
    text = text.strip()
    try:
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        t = datetime.fromisoformat(text)
        return t if t.tzinfo else t.replace(tzinfo=timezone.utc)
    except ValueError:
        return None


def parse_since(text, now):
    unit = text[-1]
    if unit.isalpha():
        n = int(text[:-1])
        return now - {"m": timedelta(minutes=n), "h": timedelta(hours=n), "d": timedelta(days=n),
                      "w": timedelta(weeks=n)}[unit]
    return parse_time(text)


def confidence_after(confidence, seen):
    earned = 1 if seen <= 1 else 2 if seen == 2 else 3
    return confidence if confidence >= 4 else max(confidence, earned)


def read_store(wanted=lambda raw: True):
    """Every record of the store that `wanted` lets through: (raw line, parsed object or None)."""
    path = os.path.join(data_dir(), "signals.jsonl")
    try:
        fh = open(path, "rb")
    except FileNotFoundError:
        return
    with fh:
        for raw in fh:
            if not raw.strip() or not wanted(raw):
                continue
            try:
                obj = json.loads(raw)
            except ValueError:
                yield raw, None
                continue
            yield raw, obj if isinstance(obj, dict) else None


def fold(sig, recurrences):
    n, last = recurrences.get(sig.get("id"), (0, ""))
    if n:
        meta = sig.setdefault("meta", {})
        seen = max(1, meta.get("seen", 1)) + n
        meta["seen"] = seen
        sig["confidence"] = confidence_after(sig.get("confidence", 1), seen)
        if last:
            meta["last_seen"] = last
    return sig


def query(args):
    statuses, kinds, session, project, since, limit = [], [], None, None, None, None
    it = iter(args)
    for a in it:
        if a == "--status":
            statuses.append(next(it))
        elif a == "--type":
            kinds.append(next(it))
        elif a == "--session":
            session = next(it)
        elif a == "--project":
            project = os.path.realpath(next(it))
        elif a == "--since":
            since = parse_since(next(it), datetime.now(timezone.utc))
        elif a == "--limit":
            limit = int(next(it))
    recurrences = {}
    hits = []
    for raw, obj in read_store():
        if obj is None:
            continue
        if "recur" in obj:
            n, last = recurrences.get(obj["recur"], (0, ""))
            recurrences[obj["recur"]] = (n + 1, max(last, obj.get("timestamp", "")))
            continue
        if "id" not in obj:
            continue
        if statuses and obj.get("status", "captured") not in statuses:
            continue
        if kinds and obj.get("type") not in kinds:
            continue
        if session and obj.get("session_id") != session:
            continue
        if project:
            p = obj.get("project") or ""
            if not (p == project or p.startswith(project.rstrip("/") + "/")):
                continue
        if since:
            t = parse_time(obj.get("timestamp", ""))
            if t is None or t < since:
                continue
        hits.append((raw, obj))
    if limit is not None:
        hits = hits[len(hits) - limit:] if limit else []
    out = sys.stdout.buffer
    for raw, obj in hits:
        if obj["id"] in recurrences:
            out.write(json.dumps(fold(obj, recurrences), ensure_ascii=False, separators=(",", ":")).encode())
            out.write(b"\n")
        else:
            out.write(raw if raw.endswith(b"\n") else raw + b"\n")


def stats(_args):
    recurrences = {}
    signals = []
    invalid = 0
    for _raw, obj in read_store():
        if obj is None:
            invalid += 1
        elif "recur" in obj:
            n, last = recurrences.get(obj["recur"], (0, ""))
            recurrences[obj["recur"]] = (n + 1, last)
        elif "id" in obj:
            signals.append(obj)
    by_status, by_type, by_conf = {}, {}, {}
    pending = needs_review = 0
    oldest = newest = None
    for s in signals:
        status = s.get("status", "captured")
        ts = s.get("timestamp", "")
        by_status[status] = by_status.get(status, 0) + 1
        by_type[s.get("type")] = by_type.get(s.get("type"), 0) + 1
        meta = s.get("meta") or {}
        conf = s.get("confidence", 1)
        n = recurrences.get(s["id"], (0,))[0]
        if n:
            conf = confidence_after(conf, max(1, meta.get("seen", 1)) + n)
        by_conf[str(conf)] = by_conf.get(str(conf), 0) + 1
        if status == "captured":
            pending += 1
            oldest = ts if oldest is None or ts < oldest else oldest
        if meta.get("needs_review") is True:
            needs_review += 1
        newest = ts if newest is None or ts > newest else newest
    join = lambda m: ", ".join(f"{k} {v}" for k, v in sorted(m.items()))
    lines = [f"signals: {len(signals)} ({pending} pending review)"]
    if signals:
        lines += [f"by status: {join(by_status)}", f"by type: {join(by_type)}", f"by confidence: {join(by_conf)}"]
    if oldest:
        lines.append(f"oldest pending: {oldest}")
    if needs_review:
        lines.append(f"analyzed for over 30 days, to review: {needs_review}")
    if invalid:
        lines.append(f"unreadable lines: {invalid} (run `memory-store doctor`)")
    lines.append(f"store size: {os.path.getsize(os.path.join(data_dir(), 'signals.jsonl'))} bytes")
    print("\n".join(lines))


def normalize(text):
    out, gap = [], False
    for c in text:
        if c.isalnum():
            if gap and out:
                out.append(" ")
            gap = False
            out.append(c.lower())
        else:
            gap = True
    return "".join(out)[:240]


def dedup_key(kind, project, content):
    h = 0xCBF29CE484222325
    for b in f"{kind}\0{project or ''}\0{normalize(content)}".encode():
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def append_signals(batch, program="memory-store"):
    """Append under the sidecar lock, deduping against a bounded tail (as the Rust store does)."""
    directory = data_dir()
    os.makedirs(directory, mode=0o700, exist_ok=True)
    path = os.path.join(directory, "signals.jsonl")
    with open(os.path.join(directory, "signals.lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with open(path, "a+b") as fh:
            size = fh.seek(0, os.SEEK_END)
            start = max(0, size - TAIL_BYTES)
            fh.seek(start)
            tail = fh.read()
            lines = tail.split(b"\n")
            if start:
                lines = lines[1:]
            now = datetime.now(timezone.utc).replace(microsecond=0)
            window = now - timedelta(days=14)
            last_id, recent, calls = None, {}, set()
            for line in lines:
                if not line:
                    continue
                try:
                    obj = json.loads(line)
                except ValueError:
                    continue
                meta = obj.get("meta") or {}
                call = obj.get("tool_use_id") or meta.get("tool_use_id")
                if call:
                    calls.add(call)
                if "recur" in obj or "id" not in obj:
                    continue
                last_id = obj["id"]
                t = parse_time(obj.get("timestamp", ""))
                if obj.get("status", "captured") == "captured" and t and t >= window and meta.get("dedup_key"):
                    recent[meta["dedup_key"]] = obj
            out = []
            if tail and not tail.endswith(b"\n"):
                out.append("")
            written = []
            for sig in batch:
                sig.setdefault("version", 1)
                sig.setdefault("timestamp", now.strftime("%Y-%m-%dT%H:%M:%SZ"))
                call = (sig.get("meta") or {}).get("tool_use_id")
                if call:
                    if call in calls:
                        continue
                    calls.add(call)
                key = dedup_key(sig["type"], sig.get("project"), sig.get("content", ""))
                if key in recent:
                    prev = recent[key]
                    out.append(json.dumps({"recur": prev["id"], "timestamp": sig["timestamp"],
                                           "session_id": sig.get("session_id"), "source": sig.get("source")},
                                          separators=(",", ":")))
                    written.append(prev["id"])
                    continue
                day = now.strftime("%Y%m%d")
                micros = (now.hour * 3600 + now.minute * 60 + now.second) * 1_000_000
                if last_id and last_id[4:12] == day:
                    try:
                        micros = max(micros, int(last_id[13:], 16) + 1)
                    except ValueError:
                        pass
                sig["id"] = last_id = f"SIG-{day}-{micros:010x}"
                sig.setdefault("meta", {})["dedup_key"] = key
                full = {"id": sig["id"], "version": 1, "timestamp": sig["timestamp"],
                        "session_id": sig.get("session_id"), "project": sig.get("project"), "type": sig["type"],
                        "status": sig.get("status", "captured"), "confidence": sig.get("confidence", 1),
                        "source": sig.get("source") or {"hook": "cli", "line": None, "uuid": None, "turn": None,
                                                        "file": None},
                        "content": sig.get("content", ""), "context": sig.get("context", ""),
                        "category": sig.get("category"), "tags": sig.get("tags", []),
                        "related": sig.get("related", []), "promoted_to": sig.get("promoted_to"),
                        "meta": sig["meta"]}
                out.append(json.dumps(full, ensure_ascii=False, separators=(",", ":")))
                written.append(sig["id"])
                if full["status"] == "captured":
                    recent[key] = full
            if any(out):
                fh.write(("\n".join(out) + "\n").encode())
    return written


def get(args):
    """The signal with id args[0], recurrences folded in; only lines holding it (or a \\u escape) are parsed."""
    want = args[0]
    needle = want.encode()
    found, n, last = None, 0, ""
    for raw, obj in read_store(lambda raw: needle in raw or b"\\u" in raw):
        if obj is None:
            continue
        if obj.get("recur") == want:
            n, last = n + 1, max(last, obj.get("timestamp", ""))
        elif found is None and obj.get("id") == want:
            found = obj
    if found is None:
        sys.exit(f"memory-store: no signal {want}")
    sys.stdout.write(json.dumps(fold(found, {want: (n, last)}), indent=2, ensure_ascii=False) + "\n")


def append(args):
    text = sys.stdin.read() if args[0] == "-" else args[0]
    obj = json.loads(text)
    for sid in append_signals(obj if isinstance(obj, list) else [obj]):
        print(sid)


if __name__ == "__main__":
    {"query": query, "stats": stats, "get": get, "append": append}[sys.argv[1]](sys.argv[2:])
