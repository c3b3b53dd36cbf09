#!/usr/bin/env python3
"""The bench's Python baseline for the `inject-signals` hook: this session's captured signals (recurrences
folded), what the user asked for first and failures only when they recurred, highest confidence first in each
section, within the token budget, as the SessionStart JSON object."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from memory_store import confidence_after, data_dir  # noqa: E402

LEARNING = {"correction", "convention", "preference", "remember"}
WORDS = {1: "low", 2: "medium", 3: "high"}
HEADINGS = ["What the user asked for (keep following it):", "Other notes from this session:",
            "Errors that recurred in this session (avoid repeating them):"]


def one_line(text, limit):
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def main():
    try:
        p = json.loads(sys.stdin.buffer.read())
    except ValueError:
        return
    session = p.get("session_id") if isinstance(p, dict) else None
    if not isinstance(session, str) or not session:
        return
    needle = '"session_id":' + json.dumps(session)
    signals, sightings, seen_here = [], {}, set()
    try:
        fh = open(os.path.join(data_dir(), "signals.jsonl"), encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return
    with fh:
        lines = fh.read().split("\n")
    for line in lines:
        is_recur = line.startswith('{"recur"')
        if not is_recur and needle not in line:  # the same literal pre-filter the Rust hook uses
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if is_recur:
            sightings[obj["recur"]] = sightings.get(obj["recur"], 0) + 1
            if obj.get("session_id") == session:
                seen_here.add(obj["recur"])
        elif obj.get("session_id") == session and "id" in obj:
            signals.append(obj)
    seen_here -= {s["id"] for s in signals}
    if seen_here:
        for line in lines:
            if any(i in line for i in seen_here):
                try:
                    obj = json.loads(line)
                except ValueError:
                    continue
                if obj.get("id") in seen_here:
                    signals.append(obj)
    for s in signals:
        n = sightings.get(s["id"], 0)
        s["_seen"] = max(1, (s.get("meta") or {}).get("seen", 1)) + n
        if n:
            s["confidence"] = confidence_after(s.get("confidence", 1), s["_seen"])
    # What the user asked for first, then other notes, then failures that recurred (a failure seen
    # once is left out), each section under its heading.
    ordered = [s for s in signals if s.get("status", "captured") == "captured" and s.get("type") != "summary"
               and (s.get("type") != "failure" or s["_seen"] > 1)]
    if not ordered:
        return
    ordered.reverse()
    section = lambda t: 0 if t in LEARNING else (2 if t == "failure" else 1)  # noqa: E731
    ordered.sort(key=lambda s: (section(s.get("type")), -s.get("confidence", 1)))
    budget = int(os.environ.get("REFLECT_INJECT_BUDGET_TOKENS", "2000")) * 4
    out = ("Learning signals captured earlier in this session by the reflect plugin (the user reviews them "
           "with /reflect).\n")
    header = len(out)
    current = None
    for s in ordered:
        c = s.get("confidence", 1)
        this = section(s.get("type"))
        heading = HEADINGS[this] if this != current else None
        line = f"- [{s['type']} · {'verified' if c >= 4 else WORDS.get(c, 'low')}] {one_line(s.get('content', ''), 300)}"
        if s["_seen"] > 1:
            line += f" (seen {s['_seen']} times)"
        line += "\n"
        need = len(line) + (len(heading) + 1 if heading else 0)
        if len(out) + need > budget:
            break
        if heading:
            out += heading + "\n"
            current = this
        out += line
    if len(out) > header:
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": out}},
                         ensure_ascii=False, separators=(",", ":")))


if __name__ == "__main__":
    try:
        main()
    except Exception:
        pass
