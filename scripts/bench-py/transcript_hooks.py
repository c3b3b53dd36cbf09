#!/usr/bin/env python3
"""The bench's Python baseline for `capture-signals` and `capture-session-summary` on a transcript:

    transcript_hooks.py signals --transcript FILE --dry-run
    transcript_hooks.py summary --transcript FILE --dry-run

json per line, the genuine user prompts picked out (not tool results, meta lines, command wrappers, compaction
summaries or sidechains), a small set of learning-moment patterns run on them, failed tool results turned into
failure signals; the summary counts turns, tools, files touched and errors. It does the same kind of work as
the Rust hooks (one pass, a parse per line, a few regexes per prompt), not their exact detector set.
"""

import json
import re
import sys

PATTERNS = [
    ("correction", re.compile(r"^\s*(no[,.!]|nope|wrong|that'?s (not|wrong)|don'?t|do not|stop|instead)\b", re.I)),
    ("correction", re.compile(r"\b(use|try) \S+ (not|instead of) \S+", re.I)),
    ("preference", re.compile(r"\b(i (prefer|like|want)|please always|please never)\b", re.I)),
    ("convention", re.compile(r"\b(always|never|we use|in this (repo|project))\b", re.I)),
    ("remember", re.compile(r"^\s*(remember|note( that)?|keep in mind)\b", re.I)),
]
NOT_HUMAN = ("<command-", "<local-command", "<system-reminder>", "[Request interrupted", "Caveat:")


def prompt_text(entry):
    if entry.get("type") != "user" or entry.get("isMeta") or entry.get("isSidechain") \
            or entry.get("isCompactSummary"):
        return None
    content = (entry.get("message") or {}).get("content")
    if isinstance(content, list):
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return None
        content = "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    if not isinstance(content, str) or not content.strip() or content.lstrip().startswith(NOT_HUMAN):
        return None
    return content


def entries(path):
    with open(path, "rb") as fh:
        for n, raw in enumerate(fh, 1):
            try:
                entry = json.loads(raw)
            except ValueError:
                continue
            if isinstance(entry, dict):
                yield n, entry


def signals(path):
    out = sys.stdout
    for n, entry in entries(path):
        text = prompt_text(entry)
        if text is not None:
            for kind, rx in PATTERNS:
                if rx.search(text):
                    out.write(json.dumps({"type": kind, "content": text[:300], "session_id": entry.get("sessionId"),
                                          "project": entry.get("cwd"),
                                          "source": {"hook": "PreCompact", "line": n, "uuid": entry.get("uuid")}},
                                         ensure_ascii=False) + "\n")
                    break
            continue
        content = (entry.get("message") or {}).get("content")
        if entry.get("type") == "user" and isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("is_error"):
                    err = block.get("content")
                    err = err if isinstance(err, str) else json.dumps(err)
                    out.write(json.dumps({"type": "failure", "content": err.strip().split("\n")[0][:160],
                                          "session_id": entry.get("sessionId"),
                                          "meta": {"tool_use_id": block.get("tool_use_id")},
                                          "source": {"hook": "PreCompact", "line": n, "uuid": entry.get("uuid")}},
                                         ensure_ascii=False) + "\n")


def summary(path):
    turns, errors, tools, files, session, project = 0, 0, {}, set(), None, None
    for _n, entry in entries(path):
        session = session or entry.get("sessionId")
        project = project or entry.get("cwd")
        if prompt_text(entry) is not None:
            turns += 1
            continue
        content = (entry.get("message") or {}).get("content")
        if not isinstance(content, list):
            continue
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                tools[block.get("name")] = tools.get(block.get("name"), 0) + 1
                inp = block.get("input") or {}
                if isinstance(inp, dict) and isinstance(inp.get("file_path"), str):
                    files.add(inp["file_path"])
            elif block.get("type") == "tool_result" and block.get("is_error"):
                errors += 1
    top = ", ".join(f"{k} {v}" for k, v in sorted(tools.items(), key=lambda kv: -kv[1])[:8])
    print(json.dumps({"type": "summary", "session_id": session, "project": project,
                      "content": f"{turns} turns; tools: {top}; {len(files)} files touched; {errors} errors",
                      "meta": {"turns": turns, "errors": errors, "files": sorted(files)[:50]}}, ensure_ascii=False))


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    path = args[args.index("--transcript") + 1]
    (signals if mode == "signals" else summary)(path)
