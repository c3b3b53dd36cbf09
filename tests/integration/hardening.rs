//! The smaller findings of issue #22 (part 6): usage errors, the opt-out through a symlink, an
//! executable Markdown target, the bound on `append`, a settings.json with a BOM.

use std::fs;

use crate::util::Env;

const PEM: &str = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAzc5leftbehindsecret\n-----END RSA PRIVATE KEY-----";
const TOKEN: &str = "sk_live_51HleftbehindSECRETxyz";

/// Usage errors ran to 3-5 lines (clap's error, a usage block, a help hint) and echoed the value:
/// a PEM passed as `--tag` was printed back. Now: one line, exit 2, naming the flag only.
#[test]
fn regression_usage_errors_are_one_line_and_never_echo_the_value() {
    let env = Env::new();
    let mark = format!("{TOKEN}:x:1");
    let cases: Vec<(&str, Vec<&str>)> = vec![
        (
            "memory-store",
            vec!["update", "SIG-20260101-000001", "--tag", PEM],
        ),
        ("memory-store", vec!["get", PEM]),
        ("memory-store", vec!["query", "--limit", TOKEN]),
        ("memory-store", vec!["query", "--status", TOKEN]),
        ("memory-store", vec!["query", "--type", TOKEN]),
        ("memory-store", vec!["digest", "--since", TOKEN]),
        ("memory-store", vec!["digest", "--mark", &mark]),
        ("memory-store", vec![TOKEN]),
        ("memory-store", vec!["promote", TOKEN]),
        ("reflect-toggle", vec![TOKEN]),
        ("reflect-toggle", vec!["on", PEM]),
        ("capture-signals", vec!["--transcript", "t.jsonl", TOKEN]),
        (
            "capture-session-summary",
            vec!["--transcript", "t.jsonl", PEM],
        ),
    ];
    for (bin, args) in &cases {
        let out = env.cmd(bin).args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bin} {args:?}: {err}");
        assert!(out.stdout.is_empty(), "{bin} {args:?}");
        assert_eq!(err.lines().count(), 1, "{bin} {args:?}: {err}");
        assert!(err.starts_with(&format!("{bin}: ")), "{err}");
        for secret in ["leftbehind", "BEGIN", "SECRET"] {
            assert!(
                !err.contains(secret),
                "{bin} {args:?} echoed the value: {err}"
            );
        }
    }
    // The flag is named.
    let out = env
        .cmd("memory-store")
        .args(["query", "--limit", TOKEN])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "memory-store: invalid value for --limit (see --help)\n"
    );
    let out = env
        .cmd("memory-store")
        .args(["query", "--tgas", "x"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown flag --tgas"));
    // Help and version still print and succeed.
    let out = env
        .cmd("memory-store")
        .args(["query", "--help"])
        .output()
        .unwrap();
    assert!(out.status.success() && String::from_utf8_lossy(&out.stdout).contains("Usage:"));
}

/// `append` of a value of the wrong type printed the value back (serde quotes it).
#[test]
fn regression_append_type_errors_do_not_echo_the_value() {
    let env = Env::new();
    let out = env
        .cmd("memory-store")
        .args(["append", "-"])
        .write_stdin(format!(
            r#"{{"type":"correction","content":"x","tags":"{TOKEN}"}}"#
        ))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        !err.contains("SECRET") && err.contains("expected a sequence"),
        "{err}"
    );
}

/// `append -` stored a 50 MB content verbatim. Over its bounds (content 2,000 characters, context
/// 4,000, a signal 16 KiB of JSON, the input 4 MiB) it now refuses, says why, and stores nothing.
#[test]
fn regression_append_refuses_a_huge_content() {
    let env = Env::new();
    let huge = format!(
        r#"{{"type":"correction","content":"{}"}}"#,
        "a".repeat(50 << 20)
    );
    let out = env
        .cmd("memory-store")
        .args(["append", "-"])
        .write_stdin(huge)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{}", &err[..err.len().min(300)]);
    assert_eq!(err.lines().count(), 1);
    assert!(
        err.contains("the input is") && err.contains("nothing stored"),
        "{err}"
    );
    let long = format!(
        r#"{{"type":"correction","content":"{}"}}"#,
        "a".repeat(2_001)
    );
    let out = env
        .cmd("memory-store")
        .args(["append", &long])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("\"content\" is 2001 characters; at most 2000"),
        "{err}"
    );
    assert!(env.store_lines().is_empty(), "nothing stored");
}

/// A settings.json saved with a UTF-8 byte order mark (Claude Code reads it) was refused with a
/// misleading position. It is read, and `on` then `off` give back its very bytes, BOM included.
#[test]
fn regression_a_settings_file_with_a_bom_is_edited_and_keeps_it() {
    let env = Env::new();
    let settings = env.config.join("settings.json");
    let before = "\u{feff}{\n  \"model\": \"opus\"\n}\n";
    fs::write(&settings, before).unwrap();
    let out = env.cmd("reflect-toggle").arg("on").output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let on = fs::read_to_string(&settings).unwrap();
    assert!(
        on.starts_with('\u{feff}') && on.contains("capture-signals"),
        "{on}"
    );
    let out = env.cmd("reflect-toggle").arg("off").output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(fs::read_to_string(&settings).unwrap(), before);
}
