//! Redaction end to end: a secret given to any real binary (`memory-store append`, `promote`,
//! `update`, `export`, `capture-failure`) never reaches the data dir, a promoted file or stdout,
//! and its `[REDACTED:<kind>]` placeholder does.

use std::fs;

use serde_json::{json, Value};

use crate::util::{stdout, transcript_entry, Env};

/// A text carrying one secret, the secret itself, and the kind it must be redacted as.
struct Sample {
    kind: &'static str,
    text: String,
    secret: String,
}

fn sample(kind: &'static str, secret: String, text: impl Fn(&str) -> String) -> Sample {
    Sample {
        kind,
        text: text(&secret),
        secret,
    }
}

/// One sample of every kind. The secrets are assembled at run time so that secret scanners do
/// not flag this file; each is unique, so finding it anywhere means it leaked.
fn samples() -> Vec<Sample> {
    vec![
        sample(
            "aws-access-key",
            ["AKIA", "Z7XQ3MDE4RTY5UPA"].concat(),
            |s| format!("aws_access_key_id={s}"),
        ),
        sample(
            "aws-secret-key",
            ["wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYzq8RtT3vX1"].concat(),
            |s| format!("aws_secret_access_key = {s}"),
        ),
        sample(
            "github-token",
            ["ghp_", "R4nd0mT0k3nV4lu3F0rT3st1ngXyZ123456"].concat(),
            |s| format!("git remote set-url origin https://{s}@github.com/o/r.git"),
        ),
        sample(
            "gitlab-token",
            ["glpat", "-Qw3rTy7UiOp2AsDf9GhJ"].concat(),
            |s| format!("GITLAB {s}"),
        ),
        sample(
            "anthropic-key",
            ["sk-ant-", "api03-Zx9Cv8Bn7Mq6Lw5Ke4Jr3Hs2Gd1Fa0PoIuYt"].concat(),
            |s| format!("claude --key {s}"),
        ),
        sample(
            "openai-key",
            ["sk-", "proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"].concat(),
            |s| format!("openai key {s}"),
        ),
        sample(
            "slack-token",
            ["xoxb", "-123456789012-1234567890123-Zz9Yy8Xx7Ww6"].concat(),
            |s| format!("slack {s}"),
        ),
        sample(
            "slack-webhook",
            ["q1W2e3R4t5Y6", "u7I8o9P0aSdF"].concat(),
            |s| format!("POST https://hooks.slack.com/services/T024BE7LD/B01ABCDEF12/{s}"),
        ),
        sample(
            "stripe-key",
            ["sk_live_", "51H8abcDEF123ghiJKL456mno"].concat(),
            |s| format!("stripe {s}"),
        ),
        sample(
            "google-api-key",
            ["AIza", "SyB-9876543210zyxwvutsrqponmlkjihgf"].concat(),
            |s| format!("maps?key={s}"),
        ),
        sample(
            "npm-token",
            ["npm_", "Np9Mq8Lr7Ks6Jt5Iu4Hv3Gw2Fx1Ey0DzCaBb"].concat(),
            |s| format!("//registry.npmjs.org/:_authToken={s}"),
        ),
        sample(
            "pypi-token",
            [
                "pypi-AgEI",
                "cHlwaS5vcmcCJDk5ZjY5ZDA2LTk0NGEtNDU5ZS1hYTk3LWE4NmNjYmVmN2E4ZQ",
            ]
            .concat(),
            |s| format!("twine upload -p {s}"),
        ),
        sample(
            "jwt",
            [
                "eyJhbGciOiJIUzI1NiJ9",
                ".eyJzdWIiOiJyZWZsZWN0LXRlc3QifQ.c2lnbmF0dXJlLXJlZmxlY3QtdGVzdA",
            ]
            .concat(),
            |s| format!("cookie session={s}"),
        ),
        sample(
            "private-key",
            "MIIEpAIBAAKCAQEAreflectTestBodyLine0123456789".to_string(),
            |s| format!("-----BEGIN RSA PRIVATE KEY-----\n{s}\n-----END RSA PRIVATE KEY-----"),
        ),
        sample("bearer-token", "bRr3a7T0k3nZ9x8c7v6".to_string(), |s| {
            format!("curl -H 'Authorization: Bearer {s}' https://api.example.com")
        }),
        sample("basic-auth", "cmVmbGVjdDpzM2NyM3Q=".to_string(), |s| {
            format!("Authorization: Basic {s}")
        }),
        sample("url-password", "Pg5ecr3tPw9".to_string(), |s| {
            format!("psql postgres://app:{s}@db.internal:5432/app")
        }),
        sample("env-secret", "EnvS3cr3tV4lue77".to_string(), |s| {
            format!("DATABASE_PASSWORD={s}")
        }),
        sample("secret-assignment", "As5ignS3cr3t88".to_string(), |s| {
            format!("{{\"api_key\": \"{s}\"}}")
        }),
    ]
}

fn all_texts(samples: &[Sample]) -> String {
    samples
        .iter()
        .map(|s| s.text.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// No secret of `samples` in `bytes` (`what` names where, for the failure message).
fn assert_no_secret(samples: &[Sample], bytes: &[u8], what: &str) {
    let text = String::from_utf8_lossy(bytes);
    for s in samples {
        assert!(
            !text.contains(&s.secret),
            "{} secret leaked into {what}:\n{text}",
            s.kind
        );
    }
}

/// The placeholder of every sample's kind in `bytes`.
fn assert_placeholders(samples: &[Sample], bytes: &[u8], what: &str) {
    let text = String::from_utf8_lossy(bytes);
    for s in samples {
        let placeholder = format!("[REDACTED:{}]", s.kind);
        assert!(
            text.contains(&placeholder),
            "{placeholder} missing from {what}:\n{text}"
        );
    }
}

fn ok_stdout(out: std::process::Output) -> String {
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout(&out)
}

fn append(env: &Env, signal: &Value) -> String {
    let out = env
        .cmd("memory-store")
        .args(["append", &signal.to_string()])
        .output()
        .unwrap();
    ok_stdout(out).trim().to_string()
}

/// Write store lines by hand, as a store written before redaction existed would hold them.
fn write_legacy_store(env: &Env, file: &str, lines: &[Value]) {
    fs::create_dir_all(&env.data).unwrap();
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(env.data.join(file), text).unwrap();
}

#[test]
fn append_stores_no_secret_in_content_context_tags_or_meta() {
    let env = Env::new();
    let samples = samples();
    let texts = all_texts(&samples);
    let tags: Vec<&str> = samples.iter().map(|s| s.text.as_str()).collect();
    let out = env
        .cmd("memory-store")
        .args([
            "append",
            &json!({
                "type": "gotcha",
                "content": texts,
                "context": texts,
                "category": samples[0].text,
                "tags": tags,
                "meta": {"note": texts, "nested": [{"deep": texts}], "api_key": "plainvalue123"},
                "future_field": texts,
            })
            .to_string(),
        ])
        .output()
        .unwrap();
    let printed = ok_stdout(out);
    assert_no_secret(&samples, printed.as_bytes(), "stdout");
    let data = env.all_data_bytes();
    assert_no_secret(&samples, &data, "the data dir");
    assert_placeholders(&samples, &data, "the data dir");
    let sig = &env.store_lines()[0];
    assert_eq!(sig["id"], printed.trim());
    for field in [&sig["content"], &sig["context"], &sig["meta"]["note"]] {
        assert_placeholders(&samples, field.as_str().unwrap().as_bytes(), "a field");
    }
    assert_eq!(sig["meta"]["api_key"], "[REDACTED:secret-assignment]");
    assert_eq!(
        sig["tags"].as_array().unwrap().len(),
        samples.len(),
        "tags are redacted, not dropped"
    );
}

#[test]
fn update_redacts_a_category_and_tags_given_on_the_command_line() {
    let env = Env::new();
    let samples = samples();
    let id = append(&env, &json!({"type": "correction", "content": "use pnpm"}));
    env.cmd("memory-store")
        .args(["update", &id, "--category", &samples[2].text])
        .args(["--tag", &samples[4].text])
        .assert()
        .success();
    let data = env.all_data_bytes();
    assert_no_secret(&samples, &data, "the data dir");
    let sig = &env.store_lines()[0];
    assert_placeholders(
        &samples[2..3],
        sig["category"].as_str().unwrap().as_bytes(),
        "category",
    );
    assert_placeholders(&samples[4..5], sig["tags"].to_string().as_bytes(), "tags");
}

#[test]
fn promote_writes_no_secret_to_the_target_the_learnings_or_the_signal() {
    let env = Env::new();
    let samples = samples();
    let id = append(
        &env,
        &json!({"type": "gotcha", "content": "deploys need credentials", "context": all_texts(&samples)}),
    );
    let target = env.dir.path().join("proj").join("CLAUDE.md");
    let content = samples
        .iter()
        .map(|s| s.text.replace('\n', " "))
        .collect::<Vec<_>>()
        .join("; ");
    let out = env
        .cmd("memory-store")
        .args([
            "promote",
            &id,
            "--mkdir",
            "--target",
            target.to_str().unwrap(),
        ])
        .args(["--content", &content])
        .output()
        .unwrap();
    let printed = ok_stdout(out);
    assert!(printed.contains("added to"), "{printed}");
    assert_no_secret(&samples, printed.as_bytes(), "stdout");
    let written = fs::read(&target).unwrap();
    assert_no_secret(&samples, &written, "the promoted file");
    assert_placeholders(&samples, &written, "the promoted file");
    let data = env.all_data_bytes();
    assert_no_secret(&samples, &data, "the data dir");
    let index = fs::read(env.data.join("learnings/LEARNINGS.md")).unwrap();
    assert!(String::from_utf8_lossy(&index).contains("[REDACTED:"));
    // The topic file keeps 500 characters of the evidence: the first placeholders are enough.
    let topic = fs::read(env.data.join("learnings/gotcha.md")).unwrap();
    assert_placeholders(&samples[..3], &topic, "the learnings topic file");
    let sig = &env.store_lines()[0];
    assert_placeholders(
        &samples,
        sig["meta"]["promoted_content"].as_str().unwrap().as_bytes(),
        "promoted_content",
    );
}

#[test]
fn promote_cleans_a_signal_stored_before_redaction() {
    let env = Env::new();
    let samples = samples();
    let id = "SIG-20261101-0000000001";
    write_legacy_store(
        &env,
        "signals.jsonl",
        &[json!({"id": id, "type": "gotcha", "content": "x", "context": all_texts(&samples)})],
    );
    let target = env.dir.path().join("CLAUDE.md");
    env.cmd("memory-store")
        .args(["promote", id, "--target", target.to_str().unwrap()])
        .args(["--content", "rotate deploy credentials monthly"])
        .assert()
        .success();
    // The store's own backup keeps the old bytes by design; the live files must be clean.
    for file in [
        "signals.jsonl",
        "learnings/LEARNINGS.md",
        "learnings/gotcha.md",
    ] {
        let bytes = fs::read(env.data.join(file)).unwrap();
        assert_no_secret(&samples, &bytes, file);
    }
    let topic = fs::read(env.data.join("learnings/gotcha.md")).unwrap();
    assert_placeholders(&samples[..3], &topic, "the learnings topic file");
}

#[test]
fn export_redacts_even_a_store_and_archive_written_before_redaction() {
    let env = Env::new();
    let samples = samples();
    let texts = all_texts(&samples);
    write_legacy_store(
        &env,
        "signals.jsonl",
        &[
            json!({"id": "SIG-20261101-0000000001", "type": "gotcha", "content": texts, "tags": [samples[1].text]}),
        ],
    );
    write_legacy_store(
        &env,
        "signals.archive.jsonl",
        &[
            json!({"id": "SIG-20261001-0000000002", "type": "correction", "status": "archived", "content": "old", "context": texts}),
        ],
    );
    for format in ["jsonl", "csv"] {
        let out = env
            .cmd("memory-store")
            .args(["export", "--archive", "--format", format])
            .output()
            .unwrap();
        let printed = ok_stdout(out);
        assert!(
            printed.contains("SIG-20261101-0000000001")
                && printed.contains("SIG-20261001-0000000002"),
            "{format}: {printed}"
        );
        assert_no_secret(&samples, printed.as_bytes(), format);
        assert_placeholders(&samples, printed.as_bytes(), format);
    }
}

#[test]
fn export_of_appended_signals_is_clean() {
    let env = Env::new();
    let samples = samples();
    append(
        &env,
        &json!({"type": "gotcha", "content": all_texts(&samples)}),
    );
    for format in ["jsonl", "csv"] {
        let out = env
            .cmd("memory-store")
            .args(["export", "--format", format])
            .output()
            .unwrap();
        let printed = ok_stdout(out);
        assert_no_secret(&samples, printed.as_bytes(), format);
        assert_placeholders(&samples, printed.as_bytes(), format);
    }
}

fn failure_payload(command: &str, error: &str) -> String {
    json!({
        "session_id": "5f0c2b0c-a7aa-4d44-b626-460d3a20d77b",
        "cwd": "/tmp/redaction-project",
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "deploy"},
        "tool_use_id": "toolu_01Ya9yUxvrvX9tbrXG1ya8Q7",
        "error": error,
        "is_interrupt": false
    })
    .to_string()
}

#[test]
fn capture_failure_redacts_the_error_and_the_tool_input() {
    let env = Env::new();
    let samples = samples();
    let command = format!(
        "{} && {} && {}",
        samples[17].text, samples[16].text, samples[14].text
    );
    let error = format!(
        "Exit code 1\nerror: deploy failed: permission denied\n{}",
        all_texts(&samples)
    );
    let out = env
        .cmd("capture-failure")
        .write_stdin(failure_payload(&command, &error))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(out.stdout.is_empty(), "a hook prints nothing");
    let data = env.all_data_bytes();
    assert_no_secret(&samples, &data, "the data dir");
    assert_placeholders(&samples, &data, "the data dir");
    let lines = env.store_lines();
    assert_eq!(lines.len(), 1, "one failure signal");
    assert!(
        lines[0]["context"].as_str().unwrap().starts_with("Tried: ")
            && lines[0]["context"]
                .as_str()
                .unwrap()
                .contains("[REDACTED:env-secret]"),
        "the command in the context is redacted: {}",
        lines[0]["context"]
    );
}

#[test]
fn capture_failure_redacts_before_cutting_so_no_token_prefix_survives() {
    let env = Env::new();
    let token = &samples()[2].secret; // github-token
    let prefix = &token[..12];
    // The error line keeps 200 characters and the command 160: both cut inside the token.
    // (An EACCES: the failure hook keeps facts of the environment.)
    let error = format!("error: eacces {} {token}\nmore", "e".repeat(178));
    let command = format!("echo {} {token}", "y".repeat(145));
    env.cmd("capture-failure")
        .write_stdin(failure_payload(&command, &error))
        .assert()
        .success();
    let data = String::from_utf8_lossy(&env.all_data_bytes()).into_owned();
    assert!(data.contains("[REDACTED:"), "{data}");
    assert!(!data.contains(prefix), "token prefix leaked: {data}");
}

#[test]
fn private_spans_are_dropped_before_anything_is_stored() {
    let env = Env::new();
    let cases = [
        ("keep <private>my salary</private> this", "keep  this"),
        (
            "start\n<private>line one\nline two\n</private>\nend",
            "start\n\nend",
        ),
        ("visible <private>never closed\nall of this", "visible "),
        (
            "a <private>x</private> b <PRIVATE>y</Private> c <private>z</private>d",
            "a  b  c d",
        ),
    ];
    let input: String = cases
        .iter()
        .map(|(text, _)| format!("{}\n", json!({"type": "remember", "content": text})))
        .collect();
    env.cmd("memory-store")
        .args(["append", "-"])
        .write_stdin(input)
        .assert()
        .success();
    let stored: Vec<String> = env
        .store_lines()
        .iter()
        .map(|l| l["content"].as_str().unwrap().to_string())
        .collect();
    let expected: Vec<&str> = cases.iter().map(|(_, want)| *want).collect();
    assert_eq!(stored, expected);
    let data = String::from_utf8_lossy(&env.all_data_bytes()).into_owned();
    for gone in [
        "my salary",
        "line one",
        "never closed",
        "all of this",
        "<private>",
    ] {
        assert!(!data.contains(gone), "{gone} stored: {data}");
    }
}

#[test]
fn ordinary_text_is_stored_byte_for_byte() {
    let env = Env::new();
    let text = "the password field is validated; commit 9fceb02d0ae598e95dc970b74767f19372d61af8 \
                in /home/dev/.config/app/credentials.json for session 3f9394bc-4c1d-4b7e-9a2c-0c0c4e1f2a3b; \
                password=${PASSWORD} and API_KEY= stay; max_tokens=100";
    append(&env, &json!({"type": "gotcha", "content": text}));
    assert_eq!(env.store_lines()[0]["content"], text);
}

#[test]
fn capture_signals_redacts_before_cutting_so_no_token_prefix_survives() {
    let env = Env::new();
    let token = &samples()[2].secret; // github-token
    let prefix = &token[..8];
    let line = |n: u32, role: &str, content: Value| {
        let entry = json!({
            "type": role,
            "message": {"role": role, "content": content},
            "uuid": format!("00000000-0000-4000-8000-{n:012}"),
            "timestamp": format!("2026-11-20T09:00:0{n}.000Z"),
        });
        format!("{entry}\n")
    };
    // The failure's error line keeps 200 characters, the correction 300: each cuts the token.
    let transcript = [
        line(1, "user", json!("run it")),
        line(
            2,
            "assistant",
            json!([{"type": "tool_use", "id": "t1", "name": "Bash",
                    "input": {"command": format!("echo {} {token}", "y".repeat(80))}}]),
        ),
        line(
            3,
            "user",
            json!([{"type": "tool_result", "tool_use_id": "t1", "is_error": true,
                    "content": format!("error: {} {token}\nmore", "e".repeat(180))}]),
        ),
        // The assistant's last line is kept to 864 bytes for the "answering" quote: the token
        // stands across that cut, and the blanks before it collapse into one when quoted.
        line(
            4,
            "assistant",
            json!([{"type": "text", "text": format!("done{}{token} ok", " ".repeat(846))}]),
        ),
        line(
            5,
            "user",
            json!(format!(
                "No, that's wrong, don't echo that path: use {} {token} instead",
                "z".repeat(235)
            )),
        ),
    ]
    .concat();
    let path = env.dir.path().join("cut.jsonl");
    fs::write(&path, transcript).unwrap();
    let out = env
        .cmd("capture-signals")
        .arg("--transcript")
        .arg(&path)
        .arg("--dry-run")
        .output()
        .unwrap();
    let printed = ok_stdout(out);
    let kinds: Vec<Value> = printed
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["type"].clone())
        .collect();
    assert!(
        kinds.contains(&json!("failure")) && kinds.contains(&json!("correction")),
        "{printed}"
    );
    assert!(printed.contains("[REDACTED:"), "{printed}");
    assert!(!printed.contains(prefix), "token prefix leaked: {printed}");
}

/// The leak a review found: a sudo password piped to `sudo -S` in the command that failed, in
/// its error and in the command that fixed it. Capture stores the failure with the fix as its
/// resolution; the index and the digest show them. The password is in none of these, and each
/// still reads as the command it was.
#[test]
fn a_password_piped_to_sudo_is_in_no_failure_resolution_index_or_digest() {
    let env = Env::new();
    let password = ["2718", "2818"].concat();
    let failed = format!("echo '{password}' | sudo -S pacman -S --needed --noconfirm mesa-utils");
    let fixed = format!("echo '{password}' | sudo -S pacman -Syu --needed --noconfirm mesa-utils");
    let line = |n: usize, role: &str, content: Value| transcript_entry(role, n, content, "s-sudo");
    let transcript = [
        line(
            1,
            "user",
            json!(format!("install mesa-utils, run {failed}")),
        ),
        line(
            2,
            "assistant",
            json!([{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": failed}}]),
        ),
        line(
            3,
            "user",
            json!([{"type": "tool_result", "tool_use_id": "t1", "is_error": true,
                    "content": format!("Exit code 1\nerror: {failed}: failed to synchronize databases")}]),
        ),
        line(
            4,
            "assistant",
            json!([{"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": fixed}}]),
        ),
        line(
            5,
            "user",
            json!([{"type": "tool_result", "tool_use_id": "t2", "content": "installing mesa-utils..."}]),
        ),
        line(6, "assistant", json!([{"type": "text", "text": "Installed."}])),
    ]
    .concat();
    let dir = env.config.join("projects").join("x");
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join("s-sudo.jsonl");
    fs::write(&path, transcript).unwrap();
    let out = env
        .cmd("capture-signals")
        .arg("--transcript")
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stored = env.store_lines();
    let failure = stored
        .iter()
        .find(|s| s["type"] == "failure")
        .unwrap_or_else(|| panic!("a failure among {stored:?}"));
    let placeholder = "echo '[REDACTED:sudo-password]' | sudo -S pacman";
    for field in ["content", "context", "resolution"] {
        let text = failure[field].as_str().unwrap_or_default();
        assert!(text.contains(placeholder), "{field}: {text}");
    }
    let index = ok_stdout(
        env.cmd("memory-store")
            .args(["query", "--format", "index"])
            .output()
            .unwrap(),
    );
    assert!(index.contains("[REDACTED:sudo-password]"), "{index}");
    let digest = ok_stdout(
        env.cmd("memory-store")
            .args(["digest", "--format", "text", "--transcript"])
            .arg(&path)
            .output()
            .unwrap(),
    );
    assert!(digest.contains(placeholder), "{digest}");
    for (what, text) in [
        (
            "the data dir",
            String::from_utf8_lossy(&env.all_data_bytes()).into_owned(),
        ),
        ("the index", index),
        ("the digest", digest),
    ] {
        assert!(!text.contains(&password), "{what}: {text}");
    }
}
