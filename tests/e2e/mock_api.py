#!/usr/bin/env python3
"""A scripted stand-in for the Anthropic Messages API, so the real Claude Code CLI runs offline.

Why: the end-to-end tests need the real client (its hooks, transcripts, compaction, skills) but no network,
no account and deterministic model turns. The "model" here obeys directives written in the user's prompt:

  [[bash: CMD]]     answer with one Bash tool_use running CMD; after its tool_result, answer "Done."
  [[read: PATH]]    answer with one Read tool_use of PATH; then "Done."
  [[autocompact]]   anywhere in the conversation: tool_use turns report 150k input tokens, so a CLI run with
                    a small CLAUDE_CODE_AUTO_COMPACT_WINDOW compacts on its own
  anything else     answer with text: "MOCK-ECHO: " + the last user text (so a skill's rendered body, with
                    its `!` command output, comes back on the CLI's stdout)
  compaction        a request whose last user text asks for "a detailed summary of the conversation" gets
                    "<analysis>…</analysis><summary>…</summary>", the shape the CLI expects

Newer CLIs put role "system" messages inside messages[]; the script looks past them. Every request body is
appended to LOG as one JSON line, so a test can assert on what the CLI sent (e.g. injected signals after a
compaction).

Safety: binds 127.0.0.1 only, on an ephemeral port written to PORTFILE once listening, and shuts itself down
after MOCK_MAX_SECONDS (default 540) even if nobody stops it.

usage: mock_api.py PORTFILE LOG
"""
import json
import os
import re
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIRECTIVE = re.compile(r"\[\[(bash|read):\s*(.*?)\]\]", re.S)
COMPACTION_MARKER = "summary of the conversation"
BIG_INPUT_TOKENS = 150_000

log_lock = threading.Lock()


def visible_messages(body):
    return [m for m in (body.get("messages") or []) if m.get("role") != "system"]


def blocks_of(message):
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content or []


def text_of(blocks):
    return "\n".join(b.get("text", "") for b in blocks if b.get("type") == "text")


def last_user_text(messages):
    """The newest user text: a tool_result-only message is skipped (its text is the tool's, not the user's)."""
    for m in reversed(messages):
        if m.get("role") != "user":
            continue
        text = text_of(blocks_of(m))
        if text.strip():
            return text
    return ""


def decide(body):
    """(content blocks, stop_reason) for one request."""
    messages = visible_messages(body)
    if not messages:
        return [{"type": "text", "text": "MOCK-ECHO: (empty)"}], "end_turn"
    last = blocks_of(messages[-1])
    last_text = text_of(last)
    if COMPACTION_MARKER in last_text.lower():
        return [{"type": "text", "text": "<analysis>mock analysis</analysis>\n"
                 "<summary>Mock summary of the session so far.</summary>"}], "end_turn"
    if any(b.get("type") == "tool_result" for b in last):
        return [{"type": "text", "text": "Done."}], "end_turn"
    directive = DIRECTIVE.search(last_text)
    if directive and body.get("tools"):
        kind, arg = directive.group(1), directive.group(2).strip()
        tool_id = "toolu_" + uuid.uuid4().hex[:20]
        if kind == "bash":
            block = {"type": "tool_use", "id": tool_id, "name": "Bash",
                     "input": {"command": arg, "description": "Run the scripted command"}}
        else:
            block = {"type": "tool_use", "id": tool_id, "name": "Read", "input": {"file_path": arg}}
        return [block], "tool_use"
    echoed = last_user_text(messages)
    return [{"type": "text", "text": "MOCK-ECHO: " + echoed[:4000]}], "end_turn"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    log_path = None

    def log_message(self, *args):
        pass

    def _json(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": "mock"}})

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_raw": raw.decode(errors="replace")}
        with log_lock, open(self.log_path, "a") as f:
            f.write(json.dumps({"t": time.time(), "path": self.path, "body": body}) + "\n")
        if "count_tokens" in self.path:
            return self._json(200, {"input_tokens": 100})
        if not self.path.startswith("/v1/messages"):
            return self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": "mock"}})
        content, stop = decide(body)
        big = "[[autocompact]]" in json.dumps(body.get("messages"))
        usage = {"input_tokens": BIG_INPUT_TOKENS if big and stop == "tool_use" else 100,
                 "output_tokens": 20, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        model = body.get("model", "claude-mock")
        message_id = "msg_" + uuid.uuid4().hex[:24]
        if not body.get("stream"):
            return self._json(200, {"id": message_id, "type": "message", "role": "assistant", "model": model,
                                    "content": content, "stop_reason": stop, "stop_sequence": None,
                                    "usage": usage})
        self._stream(message_id, model, content, stop, usage)

    def _stream(self, message_id, model, content, stop, usage):
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()

        def event(name, obj):
            self.wfile.write(f"event: {name}\ndata: {json.dumps(obj)}\n\n".encode())
            self.wfile.flush()

        event("message_start", {"type": "message_start", "message": {
            "id": message_id, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": dict(usage, output_tokens=1)}})
        for i, block in enumerate(content):
            if block["type"] == "text":
                event("content_block_start", {"type": "content_block_start", "index": i,
                                              "content_block": {"type": "text", "text": ""}})
                event("content_block_delta", {"type": "content_block_delta", "index": i,
                                              "delta": {"type": "text_delta", "text": block["text"]}})
            else:
                event("content_block_start", {"type": "content_block_start", "index": i, "content_block": {
                    "type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}})
                event("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {
                    "type": "input_json_delta", "partial_json": json.dumps(block["input"])}})
            event("content_block_stop", {"type": "content_block_stop", "index": i})
        event("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                "usage": {"output_tokens": usage["output_tokens"]}})
        event("message_stop", {"type": "message_stop"})
        self.close_connection = True


def main():
    portfile, log_path = sys.argv[1], sys.argv[2]
    Handler.log_path = log_path
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Timer(float(os.environ.get("MOCK_MAX_SECONDS", "540")), server.shutdown).start()
    tmp = portfile + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(tmp, portfile)  # the driver never reads a half-written port
    server.serve_forever()


if __name__ == "__main__":
    main()
