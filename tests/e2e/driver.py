#!/usr/bin/env python3
"""End-to-end scenarios: the real Claude Code CLI, our real binaries, a scripted model (mock_api.py).

Each scenario gets its own temp HOME / CLAUDE_CONFIG_DIR / REFLECT_HOME and work dir, turns capture on
(`reflect-toggle on`, or hand-registered hooks while reflect-toggle is still a stub), drives `claude -p`
sessions against the mock on 127.0.0.1, and checks the store and what the mock received. Every check is
reported PASS/FAIL on its own line; the exit status is 1 if any failed.

Bounds: every CLI call has a timeout and runs in its own process group, which is killed on timeout (only
what this driver started); the mock exits by itself after MOCK_MAX_SECONDS.

Scenarios (--only picks some): failure, compact, autocompact, session-end, secret, toggle-off,
toggle-skill, reflect-skill, reflect-scope, marketplace, first-use.

usage: driver.py --claude BIN --bins DIR --plugin DIR [--release DIR] [--only NAME[,NAME]] [--keep]
  (scripts/e2e installs the CLI, builds the binaries and calls this; --keep leaves the temp dirs;
  --release is a tree scripts/package-release wrote, for first-use: without it, the scenario packs the
  binaries of --bins the same way)
"""
import argparse
import http.server
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

HOOK_BINS = ["capture-signals", "capture-failure", "capture-session-summary", "inject-signals"]
ALL_BINS = HOOK_BINS + ["memory-store", "reflect-toggle"]
LEARNING_TYPES = {"correction", "convention", "preference", "command", "gotcha", "remember"}
INJECT_MARKER = "Learning signals captured earlier in this session"
CLI_TIMEOUT = 150
# Fake secrets of well-known shapes, assembled at run time so no scanner mistakes this file for a leak.
AWS_KEY = "AKIA" + "IOSFODNN7" + "EXAMPLE"
GH_TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
ANTHROPIC_KEY = "sk-ant-api03-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe" + "-AbCdEfGhIjKl"


class Run:
    """One scenario's private world: dirs, env, and helpers to run the CLI and our binaries in it."""

    def __init__(self, ctx, name):
        self.ctx = ctx
        self.name = name
        self.root = Path(tempfile.mkdtemp(prefix=f"reflect-e2e-{name}-"))
        self.home = self.root / "home dir"  # a space, as some real home dirs have
        self.config = self.home / ".claude"
        self.data = self.config / "reflections"
        self.work = self.root / "work"
        self.tmp = self.root / "tmp"
        self.config.mkdir(parents=True)
        self.work.mkdir()
        self.tmp.mkdir()
        self.calls = 0

    def env(self, extra=None):
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            # The CLI keeps per-project scratch (Bash tool output) under $TMPDIR/claude-<uid>/: keep it
            # inside this scenario's dir so cleanup takes it along.
            "TMPDIR": str(self.tmp),
            "HOME": str(self.home),
            "CLAUDE_CONFIG_DIR": str(self.config),
            "REFLECT_HOME": str(self.data),
            "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{self.ctx.port}",
            "ANTHROPIC_API_KEY": "dummy",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
        }
        env.update(extra or {})
        return env

    def bounded(self, argv, env, timeout, cwd=None, stdin=None):
        """Run argv in its own process group; on timeout kill that group and fail the call."""
        proc = subprocess.Popen(argv, cwd=cwd or self.work, env=env, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        try:
            out, err = proc.communicate(stdin.encode() if stdin else None, timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise RuntimeError(f"timed out after {timeout}s: {argv[:3]}")
        except BaseException:  # SIGTERM from scripts/e2e's overall timeout, ^C: leave nothing running
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise
        return proc.returncode, out.decode(errors="replace"), err.decode(errors="replace")

    def claude(self, prompt, session=None, resume=None, extra_env=None, allow_tools=True, plugin_dir=True,
               cwd=None):
        self.calls += 1
        argv = [self.ctx.claude, "-p", prompt, "--debug-file", str(self.root / f"debug-{self.calls}.log")]
        if plugin_dir:
            argv += ["--plugin-dir", str(self.ctx.plugin)]
        if allow_tools:
            argv += ["--allowedTools", "Bash,Read"]
        if session:
            argv += ["--session-id", session]
        if resume:
            argv += ["--resume", resume]
        code, out, err = self.bounded(argv, self.env(extra_env), CLI_TIMEOUT, cwd=cwd)
        (self.root / f"stdout-{self.calls}.txt").write_text(out + "\n--- stderr ---\n" + err)
        if code != 0:
            raise RuntimeError(f"claude -p exited {code}: {err.strip()[-300:]}")
        return out

    def debug_text(self):
        return "".join(p.read_text(errors="replace") for p in sorted(self.root.glob("debug-*.log")))

    def bin(self, name, *args, stdin=None):
        return self.bounded([str(self.ctx.bins / name), *args], self.env(), 60, stdin=stdin)

    def settings_path(self):
        return self.config / "settings.json"

    def capture_on(self):
        """Turn capture on the way a user does; fall back to registering the hooks by hand while
        reflect-toggle has not landed (reported once per run)."""
        if self.ctx.toggle_real:
            code, out, err = self.bin("reflect-toggle", "on")
            if code != 0:
                raise RuntimeError(f"reflect-toggle on exited {code}: {err.strip()}")
            return out
        settings = {}
        if self.settings_path().exists():
            settings = json.loads(self.settings_path().read_text())
        hooks = settings.setdefault("hooks", {})

        def entry(binary, matcher=None):
            group = {"hooks": [{"type": "command", "command": f'"{self.ctx.bins / binary}"', "timeout": 30}]}
            if matcher is not None:
                group = {"matcher": matcher, **group}
            return group

        hooks.setdefault("PreCompact", []).append(entry("capture-signals"))
        hooks.setdefault("PostToolUseFailure", []).append(entry("capture-failure"))
        hooks.setdefault("SessionEnd", []).append(entry("capture-session-summary"))
        hooks.setdefault("SessionStart", []).append(entry("inject-signals", "compact"))
        self.settings_path().write_text(json.dumps(settings, indent=2) + "\n")
        return "hooks registered by hand"

    def signals(self):
        code, out, err = self.bin("memory-store", "query", "--format", "json")
        if code != 0:
            raise RuntimeError(f"memory-store query exited {code}: {err.strip()}")
        return json.loads(out or "[]")

    def store_bytes(self):
        p = self.data / "signals.jsonl"
        return p.read_bytes() if p.exists() else b""

    def all_data_text(self):
        chunks = []
        if self.data.exists():
            for p in sorted(self.data.rglob("*")):
                if p.is_file():
                    chunks.append(p.read_bytes().decode(errors="replace"))
        return "\n".join(chunks)

    def transcript(self, session):
        found = list((self.config / "projects").glob(f"*/{session}.jsonl"))
        if not found:
            raise RuntimeError(f"no transcript for session {session}")
        return found[0]

    def requests(self):
        """The request bodies the mock received so far (this run shares the mock with other scenarios,
        so only requests carrying this scenario's session marker are kept)."""
        out = []
        for line in self.ctx.api_log.read_text().splitlines():
            entry = json.loads(line)
            text = json.dumps(entry.get("body"))
            if self.marker() in text:
                out.append(entry["body"])
        return out

    def marker(self):
        return f"e2e-{self.name}-{self.root.name[-8:]}"

    def cleanup(self):
        if not self.ctx.keep:
            shutil.rmtree(self.root, ignore_errors=True)


class Report:
    def __init__(self):
        self.rows = []

    def check(self, scenario, what, ok, detail=""):
        self.rows.append((scenario, what, bool(ok), detail))
        print(f"  {'PASS' if ok else 'FAIL'}  {what}" + (f"  [{detail}]" if detail and not ok else ""),
              flush=True)
        return ok


def of_type(signals, kind, session=None):
    return [s for s in signals if s.get("type") == kind and (session is None or s.get("session_id") == session)]


def text_of_signal(s):
    return " ".join(str(s.get(k) or "") for k in ("content", "context")) + " " + json.dumps(s.get("source"))


def recurrences_of(run, signal):
    """How many sightings of `signal` the store's recurrence records add (a record that only completes
    it, with a failure's resolution or a summary's update, is none)."""
    count = 0
    for line in run.store_bytes().decode("utf-8", "replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        count += (isinstance(record, dict) and record.get("recur") == signal.get("id")
                  and not record.get("completes"))
    return count


def last_user_text(body):
    msgs = [m for m in body.get("messages") or [] if m.get("role") != "system"]
    if not msgs:
        return ""
    content = msgs[-1].get("content")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content or [] if isinstance(b, dict) and b.get("type") == "text")


def compaction_index(bodies):
    """Index of the last compaction request (the summarizer prompt), or None."""
    found = None
    for i, body in enumerate(bodies):
        if "summary of the conversation" in last_user_text(body).lower():
            found = i
    return found


def additional_instructions(prompt):
    """What the CLI appended to the summarizer prompt: the /compact arguments plus every successful
    PreCompact hook's stdout, between "Additional Instructions:" and the closing "REMINDER:"."""
    if "Additional Instructions:" not in prompt:
        return ""
    return prompt.split("Additional Instructions:", 1)[1].split("REMINDER:", 1)[0].strip()


def injected_after_compaction(bodies, needle):
    """True when a request after the (last) compaction request carries our injected context with needle."""
    idx = compaction_index(bodies)
    if idx is None:
        return False, "no compaction request reached the mock"
    for body in bodies[idx + 1:]:
        for msg in body.get("messages") or []:
            content = msg.get("content")
            texts = [content] if isinstance(content, str) else [b.get("text", "") for b in content or []
                                                                 if isinstance(b, dict)]
            for t in texts:
                if INJECT_MARKER in t and needle.lower() in t.lower():
                    return True, ""
    return False, f"{len(bodies) - idx - 1} request(s) after compaction, none with {INJECT_MARKER!r} + {needle!r}"


# ---------------------------------------------------------------------------------------------------
# Scenarios


def scenario_failure(run, report):
    """A failing Bash call -> exactly one failure signal, its error redacted."""
    sid = str(uuid.uuid4())
    run.capture_on()
    # A fact of the environment (a missing program): the kind of Bash failure the hook stores at once.
    cmd = f"echo 'bash: deployctl --key {AWS_KEY} --token {GH_TOKEN}: command not found' >&2; exit 127"
    run.claude(f"{run.marker()} run the deploy [[bash: {cmd}]]", session=sid)
    failures = of_type(run.signals(), "failure", sid)
    report.check(run.name, "exactly one failure signal for the session", len(failures) == 1,
                 f"{len(failures)} found")
    if failures:
        report.check(run.name, "it records the tool and the exit code",
                     "Bash" in text_of_signal(failures[0]) and "Exit code 127" in text_of_signal(failures[0]),
                     text_of_signal(failures[0])[:200])
    data = run.all_data_text()
    report.check(run.name, "no secret from the error anywhere in the data dir",
                 AWS_KEY not in data and GH_TOKEN not in data)
    report.check(run.name, "the error is stored redacted ([REDACTED:…])",
                 bool(failures) and "[REDACTED:" in text_of_signal(failures[0]))


def correction_then_compact(run, report, auto):
    """An assistant action, a user correction, then a compaction (manual or auto), then one more turn."""
    sid = str(uuid.uuid4())
    run.capture_on()
    # A missing program fails in two turns: a failure put back after a compaction is one that recurred
    # (in another episode: another turn of the session).
    ls = "[[bash: reflect-e2e-missing-tool --list]]"
    run.claude(f"{run.marker()} list the files {ls}", session=sid)
    correction = "No, that's wrong: don't use npm in this project, use pnpm instead."
    extra = {}
    if auto:
        extra = {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "100000"}
        run.claude(f"{run.marker()} {correction} Now list them again. [[autocompact]] {ls}",
                   resume=sid, extra_env=extra)
    else:
        run.claude(f"{run.marker()} {correction} Now list them again. {ls}", resume=sid)
        run.claude("/compact keep the corrections", resume=sid)
    run.claude(f"{run.marker()} what next?", resume=sid)

    debug = run.debug_text()
    precompact_runs = sum(1 for line in debug.splitlines()
                          if "PreCompact:" in line and "capture-signals" in line and "completed" in line)
    print(f"  info  PreCompact ran capture-signals {precompact_runs} time(s) (debug log)")
    bodies = run.requests()
    idx = compaction_index(bodies)
    report.check(run.name, f"{'an auto' if auto else 'a manual'} compaction happened", idx is not None)
    # PreCompact's stdout is appended to the summarizer prompt: ours must add nothing to it.
    extra_instructions = additional_instructions(last_user_text(bodies[idx])) if idx is not None else "?"
    expected = "" if auto else "keep the corrections"
    report.check(run.name, "capture-signals added nothing to the summarizer prompt",
                 extra_instructions == expected, repr(extra_instructions[:200]))

    # A PreCompact that fires again (2-4 times per compaction is normal) must store nothing new.
    payload = {"session_id": sid, "transcript_path": str(run.transcript(sid)), "cwd": str(run.work),
               "hook_event_name": "PreCompact", "trigger": "auto" if auto else "manual",
               "custom_instructions": None}
    before = run.store_bytes()
    code, out, _ = run.bin("capture-signals", stdin=json.dumps(payload))
    report.check(run.name, "a repeated PreCompact firing exits 0, prints nothing, stores nothing",
                 code == 0 and out == "" and run.store_bytes() == before)

    # The detectors decide the type (correction, convention or preference are all fair for "No, use pnpm
    # instead"); what must hold is one learning signal for it, whichever hook saw it first.
    learned = [s for s in run.signals() if s.get("session_id") == sid and s.get("type") in LEARNING_TYPES
               and "pnpm" in (s.get("content") or "")]
    for s in learned:
        print(f"  info  stored as {s.get('type')} by {s.get('source', {}).get('hook')}: {s.get('content')[:80]!r}")
    report.check(run.name, "the correction is stored exactly once", len(learned) == 1, f"{len(learned)} found")
    failures = of_type(run.signals(), "failure", sid)
    # The second turn's failure is one more episode: one recurrence record, whichever of the failure
    # hook and the two miners (PreCompact, SessionEnd) met it.
    report.check(run.name, "the missing tool is stored once (capture-failure), its repeat as a recurrence",
                 len(failures) == 1 and recurrences_of(run, failures[0]) == 1,
                 f"{len(failures)} found, {recurrences_of(run, failures[0]) if failures else 0} recurrence(s)")
    ok, why = injected_after_compaction(bodies, "reflect-e2e-missing-tool: command not found")
    report.check(run.name, "the request after compaction carries the recurring failure", ok, why)
    ok, why = injected_after_compaction(bodies, "pnpm")
    report.check(run.name, "the request after compaction carries the injected correction", ok, why)


def scenario_compact(run, report):
    correction_then_compact(run, report, auto=False)


def scenario_autocompact(run, report):
    correction_then_compact(run, report, auto=True)


def scenario_session_end(run, report):
    """One -p session -> one summary signal, written inside SessionEnd's 1.5 s budget."""
    sid = str(uuid.uuid4())
    run.capture_on()
    run.claude(f"{run.marker()} check the tree [[bash: echo fine]]", session=sid)
    summaries = of_type(run.signals(), "summary", sid)
    report.check(run.name, "exactly one summary signal for the session", len(summaries) == 1,
                 f"{len(summaries)} found")
    # The CLI logs "SessionEnd:<reason> [cmd] completed with status 0", or "failed: Hook cancelled"
    # when the 1.5 s budget ran out (CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS is not set here).
    lines = [line for line in run.debug_text().splitlines()
             if "SessionEnd" in line and "capture-session-summary" in line]
    completed = [line for line in lines if "completed with status 0" in line]
    report.check(run.name, "the SessionEnd hook completed inside the budget (not cancelled)",
                 len(completed) == 1 and not any("cancelled" in line.lower() for line in lines),
                 "; ".join(line[:160] for line in lines) or "no SessionEnd line in the debug log")


def scenario_secret(run, report):
    """A secret typed by the user inside a correction is stored only as [REDACTED:…]."""
    sid = str(uuid.uuid4())
    run.capture_on()
    run.claude(f"{run.marker()} call the API [[bash: echo calling]]", session=sid)
    run.claude(f"{run.marker()} No, don't use the old key; use {ANTHROPIC_KEY} from now on, and always "
               "read it from the environment.", resume=sid)
    data = run.all_data_text()
    report.check(run.name, "the secret is nowhere in the data dir", ANTHROPIC_KEY not in data)
    redacted = [s for s in run.signals() if s.get("session_id") == sid and s.get("type") != "summary"
                and "[REDACTED:" in text_of_signal(s)]
    report.check(run.name, "the correction is stored with [REDACTED:…] in place of the key", len(redacted) >= 1,
                 f"signals: {[s.get('type') for s in run.signals()]}")


def scenario_toggle_off(run, report):
    """on then off: settings.json as before; a fresh session adds nothing to the store."""
    if not run.ctx.toggle_real:
        report.check(run.name, "reflect-toggle exists", False, "reflect-toggle is still a stub (branch toggle)")
        return
    original = {"model": "claude-e2e", "permissions": {"allow": ["Bash(ls:*)"]},
                "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]},
                "zzUnknownKey": [1, 2, 3]}
    text = json.dumps(original, indent=2) + "\n"
    run.settings_path().write_text(text)
    run.capture_on()
    run.claude(f"{run.marker()} warm up [[bash: reflect-e2e-missing-tool --list]]", session=str(uuid.uuid4()))
    # The same session while on is captured, so "nothing added" below means something.
    report.check(run.name, "while on, the session was captured", len(of_type(run.signals(), "failure")) == 1)
    code, _, err = run.bin("reflect-toggle", "off")
    report.check(run.name, "reflect-toggle off exits 0", code == 0, err.strip())
    after = run.settings_path().read_text()
    report.check(run.name, "settings.json is byte for byte what it was before `on`", after == text, after[:300])
    before = run.store_bytes()
    sid = str(uuid.uuid4())
    run.claude(f"{run.marker()} try again [[bash: ls /nonexistent-e2e-dir]]", session=sid)
    run.claude(f"{run.marker()} No, don't use false, use true instead.", resume=sid)
    run.claude("/compact", resume=sid)
    report.check(run.name, "a fresh session while off adds nothing to the store", run.store_bytes() == before)


def scenario_toggle_skill(run, report):
    """/reflect-toggle through `claude -p`: the skill's `!` line runs reflect-toggle and the state comes back."""
    # $ARGUMENTS is pasted into the `!` command as text: a shell command smuggled in must not run (the
    # permission check splits the line, and allowed-tools names only the runner).
    probe = run.work / "injected"
    run.claude(f"/reflect-toggle status; touch {probe}", allow_tools=False)
    report.check(run.name, "a command smuggled into the arguments does not run", not probe.exists())
    if not run.ctx.toggle_real:
        report.check(run.name, "reflect-toggle exists", False, "reflect-toggle is still a stub (branch toggle)")
        return
    for action, expect_on in (("on", True), ("status", True), ("off", False)):
        out = run.claude(f"/reflect-toggle {action}", allow_tools=False)  # the skill's own allowed-tools
        registered = run.settings_path().exists() and "capture-failure" in run.settings_path().read_text()
        report.check(run.name, f"/reflect-toggle {action}: settings.json {'has' if expect_on else 'lacks'} our hooks",
                     registered == expect_on)
        # The skill body quotes the runner's output between the fence lines; the mock echoes the body.
        block = out.split("its output:", 1)[-1].split("```")[1].strip() if "its output:" in out else ""
        report.check(run.name, f"/reflect-toggle {action}: the reply carries reflect-toggle's output",
                     block != "" and "exited with status" not in block, out[-300:])
        if action == "status":
            _, direct, _ = run.bin("reflect-toggle", "status")
            first = direct.strip().splitlines()[0] if direct.strip() else "<empty>"
            report.check(run.name, "/reflect-toggle status reports what reflect-toggle status says",
                         first in block, f"direct: {first!r}; skill: {block[:200]!r}")


def scenario_reflect_skill(run, report):
    """/reflect through `claude -p`: the body renders with the plugin path and the focus, and the skill's
    own allowed-tools let the model run the memory-store launcher (no --allowedTools on this call)."""
    code, out, err = run.bin("memory-store", "append", '{"type":"correction","content":"Use pnpm, not npm"}')
    if code != 0:
        raise RuntimeError(f"memory-store append exited {code}: {err.strip()}")
    sid = out.strip()
    launcher = run.ctx.plugin / "skills" / "self-reflect" / "memory-store"
    run.claude(f"/reflect {run.marker()} [[bash: {launcher} query --status captured --format index]]",
               allow_tools=False)
    bodies = run.requests()
    sent = json.dumps(bodies)
    report.check(run.name, "the /reflect body reached the model with the focus argument",
                 "turn captured signals into lasting improvements" in sent
                 and f"Focus given by the user (may be empty): {run.marker()}" in sent)
    report.check(run.name, "${CLAUDE_PLUGIN_ROOT} was substituted with the plugin dir",
                 str(launcher) in sent and "${CLAUDE_PLUGIN_ROOT}" not in sent)
    # The skill finds this session's transcript (and so the config dir) through its id.
    transcripts = list((run.config / "projects").glob("*/*.jsonl"))
    session = transcripts[0].stem if len(transcripts) == 1 else "<no single transcript>"
    report.check(run.name, "${CLAUDE_SESSION_ID} was substituted with this session's id",
                 f"/projects/<cwd slug>/{session}.jsonl" in sent, f"session {session}")
    results = [b for body in bodies for m in body.get("messages") or [] if isinstance(m.get("content"), list)
               for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]
    ran = [r for r in results if sid in json.dumps(r.get("content")) and not r.get("is_error")]
    report.check(run.name, "allowed-tools let the model run `memory-store query --format index`; its result "
                 "lists the stored signal", len(ran) == 1, json.dumps(results)[:300])
    # The namespaced form the contract promises as well. Before 2.1.216 the namespace's last segment is
    # the skill's directory name, not its frontmatter name (2.1.197 answers "Unknown command:
    # /self-improvement:reflect"), so there the directory form is what exists.
    namespaced = "/self-improvement:reflect" if run.ctx.version >= (2, 1, 216) else "/self-improvement:self-reflect"
    run.claude(f"{namespaced} {run.marker()}-ns", allow_tools=False)
    report.check(run.name, f"{namespaced} expands the same skill",
                 f"Focus given by the user (may be empty): {run.marker()}-ns" in json.dumps(run.requests()))
    # Control: the rules are narrow; a command they do not name is refused in the same setting.
    probe = run.work / "should-not-exist"
    run.claude(f"/reflect {run.marker()}-control [[bash: touch {probe}]]", allow_tools=False)
    report.check(run.name, "a command outside allowed-tools is refused (touch did not run)", not probe.exists())


def scenario_reflect_scope(run, report):
    """/reflect in a project, with signals and sessions of two projects: the model is shown this project's
    signals, the personal preferences of the other marked global, and the digest of this project's sessions
    only (all of it reaches the mock in the rendered skill: its `!` step ran before the model). The digest's
    mark command, run through the skill's own allowed-tools, keeps those prompts out of the next /reflect."""
    run.capture_on()
    app, other = run.work / "app", run.work / "other"
    for d in (app, other):
        (d / ".git").mkdir(parents=True)
    m = run.marker()

    def add(kind, content, project):
        code, out, err = run.bin("memory-store", "append",
                                 json.dumps({"type": kind, "content": content, "project": str(project)}))
        if code != 0:
            raise RuntimeError(f"memory-store append exited {code}: {err.strip()}")
        return out.strip()

    app_signal = add("correction", f"{m} APP-SIGNAL use pnpm in app", app / "src")
    other_signal = add("correction", f"{m} OTHER-SIGNAL use yarn in other", other)
    preference = add("preference", f"{m} GLOBAL-PREF keep answers short", other)
    # One session in each project, each ended (so capture recorded it), each with a prompt the hooks
    # do not store.
    (app / "src").mkdir()
    run.claude(f"{m} APP-PROMPT what does the export command print for an empty table?",
               session=str(uuid.uuid4()), cwd=app / "src")
    run.claude(f"{m} OTHER-PROMPT what does the cache key hold?", session=str(uuid.uuid4()), cwd=other)

    before = len(run.requests())
    run.claude(f"/reflect {m}", cwd=app, allow_tools=False)
    sent = json.dumps(run.requests()[before:])
    report.check(run.name, "the gather step ran before the model (its index and digest are in the skill)",
                 "### Captured signals" in sent and "### Second look" in sent, sent[:300])
    report.check(run.name, "the model is shown this project's signal (captured in a subdirectory)",
                 app_signal in sent and "APP-SIGNAL" in sent)
    report.check(run.name, "and the other project's personal preference, marked global",
                 preference in sent and "(global)  " + m + " GLOBAL-PREF" in sent.replace("\\n", "\n"))
    report.check(run.name, "but not the other project's correction",
                 other_signal not in sent and "OTHER-SIGNAL" not in sent)
    report.check(run.name, "the digest lists this project's prompt", "APP-PROMPT what does the export" in sent)
    report.check(run.name, "and not the other project's", "OTHER-PROMPT" not in sent)
    report.check(run.name, "the /reflect session itself, not written yet, is not reported as gone",
                 "transcript is gone" not in sent)

    # The mark command the digest printed, run the way the skill tells the model to.
    text = sent.replace("\\n", "\n")
    marks = [line for line in text.split("\n") if line.startswith("memory-store digest --mark ")]
    report.check(run.name, "the digest ends with its mark command", len(marks) == 1, text[-400:])
    if not marks:
        return
    launcher = run.ctx.plugin / "skills" / "self-reflect" / "memory-store"
    command = f"{launcher} digest" + marks[0].split("memory-store digest", 1)[1].split("\"")[0]
    before = len(run.requests())
    run.claude(f"/reflect {m}-mark [[bash: {command}]]", cwd=app, allow_tools=False)
    results = [b for body in run.requests()[before:] for msg in body.get("messages") or []
               if isinstance(msg.get("content"), list) for b in msg["content"]
               if isinstance(b, dict) and b.get("type") == "tool_result"]
    report.check(run.name, "allowed-tools let the model run the mark command",
                 any("marked session" in json.dumps(r.get("content")) and not r.get("is_error")
                     for r in results), json.dumps(results)[:300])
    before = len(run.requests())
    run.claude(f"/reflect {m}-again", cwd=app, allow_tools=False)
    again = json.dumps(run.requests()[before:])
    report.check(run.name, "the next /reflect does not list the marked prompt again",
                 "### Second look" in again and "APP-PROMPT" not in again, again[-300:])


def scenario_marketplace(run, report):
    """The repo as a marketplace: `claude plugin marketplace add DIR` + `plugin install`, then /reflect
    works in a session without --plugin-dir, and installing registered no hook (capture stays off)."""
    cli = [run.ctx.claude, "plugin"]
    code, out, err = run.bounded(cli + ["marketplace", "add", str(run.ctx.plugin)], run.env(), 90)
    report.check(run.name, "plugin marketplace add <dir> succeeds", code == 0, (out + err).strip()[-200:])
    market = json.loads((run.ctx.plugin / ".claude-plugin" / "marketplace.json").read_text())["name"]
    code, out, err = run.bounded(cli + ["install", f"self-improvement@{market}"], run.env(), 90)
    report.check(run.name, f"plugin install self-improvement@{market} succeeds", code == 0,
                 (out + err).strip()[-200:])
    code, out, _ = run.bounded(cli + ["list", "--json"], run.env(), 60)
    listed = json.loads(out) if code == 0 and out.strip().startswith("[") else []
    report.check(run.name, "plugin list shows it enabled at the manifest's version",
                 any(p.get("id") == f"self-improvement@{market}" and p.get("enabled")
                     and p.get("version") == json.loads((run.ctx.plugin / ".claude-plugin" / "plugin.json")
                                                        .read_text())["version"] for p in listed), out[:300])
    settings = json.loads(run.settings_path().read_text()) if run.settings_path().exists() else {}
    report.check(run.name, "installing the plugin registered no hook", "hooks" not in settings,
                 json.dumps(settings)[:300])
    run.claude(f"/reflect {run.marker()}", plugin_dir=False, allow_tools=False)
    report.check(run.name, "/reflect expands from the installed plugin",
                 f"Focus given by the user (may be empty): {run.marker()}" in json.dumps(run.requests()))


def release_tree(ctx, work):
    """A release server's tree for this plugin's version and host: --release, or --bins packed as
    scripts/package-release lays it out (download/v<version>/reflect-<version>-<target>.tar.gz)."""
    if ctx.release:
        return ctx.release
    version = json.loads((ctx.source / ".claude-plugin" / "plugin.json").read_text())["version"]
    host = subprocess.run(["rustc", "-vV"], capture_output=True, text=True, timeout=60).stdout
    target = next(line.split(": ", 1)[1] for line in host.splitlines() if line.startswith("host: "))
    name = f"reflect-{version}-{target}"
    stage = work / "stage" / name
    stage.mkdir(parents=True)
    for b in ALL_BINS:
        shutil.copy2(ctx.bins / b, stage / b)
    dest = work / "release" / "download" / f"v{version}"
    dest.mkdir(parents=True)
    subprocess.run(["tar", "-C", str(stage.parent), "-czf", str(dest / f"{name}.tar.gz"), name], check=True,
                   timeout=120)
    return work / "release"


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def scenario_first_use(run, report):
    """A fresh marketplace install with no binaries anywhere and no cargo on PATH: one
    `claude -p "/reflect-toggle on"` downloads the pinned release archive from a release server on
    127.0.0.1, installs it and turns capture on; the next session is captured."""
    market = run.root / "market"
    files = subprocess.run(["git", "-C", str(run.ctx.source), "ls-files", "-z"], capture_output=True,
                           check=True, timeout=60).stdout.decode().split("\0")
    for rel in filter(None, files):
        if (run.ctx.source / rel).is_file():
            (market / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(run.ctx.source / rel, market / rel)
    release = release_tree(run.ctx, run.root)
    version = json.loads((market / ".claude-plugin" / "plugin.json").read_text())["version"]
    # The checksum goes where a real release pins it: the plugin's own release/SHA256SUMS.
    subprocess.run([str(run.ctx.source / "scripts" / "pin-release"), "--plugin", str(market),
                    str(release / "download" / f"v{version}")], check=True, timeout=60, stdout=subprocess.DEVNULL)
    handler = lambda *a, **kw: QuietHandler(*a, directory=str(release), **kw)  # noqa: E731
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        no_cargo = os.pathsep.join(d for d in os.environ.get("PATH", "").split(os.pathsep)
                                   if d and not os.path.exists(os.path.join(d, "cargo")))
        extra = {"PATH": no_cargo, "REFLECT_RELEASE_URL": f"http://127.0.0.1:{httpd.server_address[1]}"}
        cli = [run.ctx.claude, "plugin"]
        code, out, err = run.bounded(cli + ["marketplace", "add", str(market)], run.env(extra), 90)
        report.check(run.name, "plugin marketplace add <tracked files> succeeds", code == 0, (out + err)[-200:])
        name = json.loads((market / ".claude-plugin" / "marketplace.json").read_text())["name"]
        code, out, err = run.bounded(cli + ["install", f"self-improvement@{name}"], run.env(extra), 90)
        report.check(run.name, "plugin install succeeds", code == 0, (out + err)[-200:])
        started = time.time()
        reply = run.claude("/reflect-toggle on", plugin_dir=False, allow_tools=False, extra_env=extra)
        seconds = time.time() - started
        print(f"  info  claude -p \"/reflect-toggle on\": {seconds:.1f} s, download and install included")
        settings = run.settings_path().read_text() if run.settings_path().exists() else ""
        bin_dir = run.data / "bin"
        report.check(run.name, "in that one call: all four hooks registered, pointing at <data dir>/bin",
                     all(f"{bin_dir / b}" in settings for b in HOOK_BINS), settings[:300])
        report.check(run.name, "the six binaries are installed", all((bin_dir / b).is_file() for b in ALL_BINS))
        report.check(run.name, "the reply says where they came from and that capture is on",
                     "SHA-256 verified" in reply and "reflect: on" in reply, reply[-400:])
        caches = list((run.config / "plugins" / "cache").rglob("run-toggle"))
        plugin_root = caches[0].parents[2] if caches else None
        report.check(run.name, "no build output in the installed plugin folder",
                     plugin_root is not None and not (plugin_root / "target").exists()
                     and not (plugin_root / "dist").exists(), str(plugin_root))
        sid = str(uuid.uuid4())
        run.claude(f"{run.marker()} run it [[bash: reflect-e2e-missing-tool --list]]", session=sid, plugin_dir=False,
                   extra_env=extra)
        report.check(run.name, "the next session is captured (one failure signal)",
                     len(of_type(run.signals(), "failure", sid)) == 1)
    finally:
        httpd.shutdown()
        httpd.server_close()


SCENARIOS = {
    "failure": scenario_failure,
    "compact": scenario_compact,
    "autocompact": scenario_autocompact,
    "session-end": scenario_session_end,
    "secret": scenario_secret,
    "toggle-off": scenario_toggle_off,
    "toggle-skill": scenario_toggle_skill,
    "reflect-skill": scenario_reflect_skill,
    "reflect-scope": scenario_reflect_scope,
    "marketplace": scenario_marketplace,
    "first-use": scenario_first_use,
}


class Context:
    pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--claude", required=True)
    ap.add_argument("--bins", required=True)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--release", default="")
    ap.add_argument("--only", default="")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()

    # The overall `timeout` in scripts/e2e sends SIGTERM: unwind, so the CLI call under way and the mock
    # are killed by the handlers below instead of being orphaned.
    signal.signal(signal.SIGTERM, lambda signum, _frame: sys.exit(128 + signum))
    ctx = Context()
    ctx.claude, ctx.bins, ctx.keep = args.claude, Path(args.bins).resolve(), args.keep
    ctx.source = Path(args.plugin).resolve()
    ctx.release = Path(args.release).resolve() if args.release else None
    for b in ALL_BINS:
        if not (ctx.bins / b).is_file():
            sys.exit(f"e2e: {ctx.bins / b} missing: build the binaries first")
    version = subprocess.run([ctx.claude, "--version"], capture_output=True, text=True, timeout=60).stdout.strip()
    print(f"claude CLI: {version}")
    ctx.version = tuple(int(x) for x in version.split()[0].split("."))
    help_text = subprocess.run([str(ctx.bins / "reflect-toggle"), "--help"], capture_output=True, text=True,
                               timeout=30).stdout
    ctx.toggle_real = "status" in help_text
    print("capture on via: " + ("reflect-toggle on" if ctx.toggle_real
                                else "hooks registered by hand (reflect-toggle is still a stub)"))

    # The plugin as Claude Code loads it, with dist/ holding this build (the skill runner looks there;
    # a real install builds it with scripts/install.sh).
    work = Path(tempfile.mkdtemp(prefix="reflect-e2e-"))
    ctx.plugin = work / "plugin"
    src = Path(args.plugin).resolve()
    shutil.copytree(src / ".claude-plugin", ctx.plugin / ".claude-plugin")
    shutil.copytree(src / "skills", ctx.plugin / "skills")
    (ctx.plugin / "dist").mkdir()
    for b in ALL_BINS:
        shutil.copy2(ctx.bins / b, ctx.plugin / "dist" / b)
    ctx.api_log = work / "api-requests.jsonl"
    ctx.api_log.touch()
    portfile = work / "port"
    mock = subprocess.Popen([sys.executable, str(Path(__file__).with_name("mock_api.py")), str(portfile),
                             str(ctx.api_log)], env={**os.environ, "MOCK_MAX_SECONDS": "560"},
                            start_new_session=True)
    report = Report()
    try:
        deadline = time.time() + 15
        while not portfile.exists():
            if time.time() > deadline or mock.poll() is not None:
                sys.exit("e2e: the mock API did not start")
            time.sleep(0.05)
        ctx.port = int(portfile.read_text())
        print(f"mock API on 127.0.0.1:{ctx.port}")
        chosen = [s for s in args.only.split(",") if s] or list(SCENARIOS)
        for name in chosen:
            print(f"scenario {name}:", flush=True)
            run = Run(ctx, name)
            started = time.time()
            try:
                SCENARIOS[name](run, report)
            except Exception as e:  # a scenario that cannot finish is a failure, never a skip
                report.check(name, "scenario ran to the end", False, f"{type(e).__name__}: {e}")
            finally:
                print(f"  ({time.time() - started:.1f}s, {run.calls} CLI call(s), dir {run.root})")
                run.cleanup()
    finally:
        if mock.poll() is None:
            mock.terminate()
            try:
                mock.wait(10)
            except subprocess.TimeoutExpired:
                mock.kill()
        if not ctx.keep:
            shutil.rmtree(work, ignore_errors=True)

    failed = [r for r in report.rows if not r[2]]
    passed = len(report.rows) - len(failed)
    by_scenario = {}
    for scenario, _, ok, _ in report.rows:
        by_scenario.setdefault(scenario, True)
        by_scenario[scenario] &= ok
    print("summary: " + ", ".join(f"{s} {'ok' if ok else 'FAILED'}" for s, ok in by_scenario.items()))
    print(f"e2e: {passed} passed, {len(failed)} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
