#!/usr/bin/env python3
"""The bench's Python baseline for the `capture-failure` hook: read the PostToolUseFailure payload, build the
same failure signal (tool, error headline, input summary) and append it the way the Rust store does."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from memory_store import append_signals  # noqa: E402


def one_line(text, limit):
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def input_summary(tool, data):
    data = data if isinstance(data, dict) else {}
    field = lambda k: data.get(k) if isinstance(data.get(k), str) else None
    summary = {
        "Bash": lambda: field("command"), "Read": lambda: field("file_path"), "Write": lambda: field("file_path"),
        "Edit": lambda: field("file_path"), "Glob": lambda: field("pattern"), "WebFetch": lambda: field("url"),
        "Grep": lambda: field("pattern") and (field("pattern") + (f" in {field('path')}" if field("path") else "")),
        "Task": lambda: field("description") or field("subagent_type"),
    }.get(tool, lambda: None)()
    if summary is None:
        summary = next((v for v in data.values() if isinstance(v, str)), "")
    return one_line(summary, 160)


def error_head(error):
    lines = [l.strip() for l in error.splitlines() if l.strip()]
    first = lines[0] if lines else "unknown error"
    bare = first.startswith("Exit code ") and first[10:].isdigit()
    return one_line(f"{first}: {lines[1]}" if bare and len(lines) > 1 else first, 160)


def main():
    try:
        p = json.loads(sys.stdin.buffer.read())
    except ValueError:
        return
    if not isinstance(p, dict) or p.get("is_interrupt") is True:
        return
    cwd = p.get("cwd")
    if isinstance(cwd, str) and os.path.exists(os.path.join(cwd, ".claude", "reflect.off")):
        return
    tool = p.get("tool_name")
    if not isinstance(tool, str) or not tool:
        return
    error = p.get("error") if isinstance(p.get("error"), str) else ""
    tried = input_summary(tool, p.get("tool_input"))
    content = f"{tool} failed: {error_head(error)}" + (f" (on `{one_line(tried, 100)}`)" if tried else "")
    meta = {"tool": tool}
    if p.get("tool_use_id"):
        meta["tool_use_id"] = p["tool_use_id"]
    sig = {"session_id": p.get("session_id"), "project": cwd, "type": "failure",
           "source": {"hook": "PostToolUseFailure", "line": None, "uuid": None, "turn": None, "file": None},
           "content": content, "context": (f"Tried: {tried}\n" if tried else "") + f"Error: {error[:1500]}",
           "category": "tool-failure", "tags": [tool.lower()], "meta": meta}
    append_signals([sig])


if __name__ == "__main__":
    try:
        main()
    except Exception:  # a hook never fails the session
        pass
