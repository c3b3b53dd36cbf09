//! Nothing left behind (issue #22, part 5): what a killed writer, a `forget` or the toggle's
//! runner could leave under the config dir or the data dir, and what `doctor` says of it.

use std::fs;
use std::process::Command as StdCommand;

use crate::util::{stdout, Env};

/// The id of a process that has exited: a writer SIGKILLed mid-rewrite.
fn dead_pid() -> u32 {
    let mut child = StdCommand::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

fn doctor(env: &Env) -> String {
    stdout(&env.cmd("memory-store").arg("doctor").output().unwrap())
}

/// A SIGKILL of `reflect-toggle` between creating its temp file and renaming it left
/// `.settings.json.<pid>.<ns>.N.tmp` (a full copy of settings.json, `env` tokens included) in
/// the config dir forever, and doctor said nothing of it.
#[test]
fn regression_a_killed_settings_rewrite_leaves_no_copy_of_settings() {
    let env = Env::new();
    let settings = env.config.join("settings.json");
    let secret = "sk-ant-api03-leftbehindleftbehindleftbehind";
    fs::write(&settings, format!("{{\"env\":{{\"KEY\":\"{secret}\"}}}}\n")).unwrap();
    let dead = dead_pid();
    let live = std::process::id();
    let left = env
        .config
        .join(format!(".settings.json.{dead}.123456789.0.tmp"));
    // A live writer's temp, another file's temp and a name of another shape stay.
    let keep = [
        env.config.join(format!(".settings.json.{live}.5.0.tmp")),
        env.config.join(format!(".other.json.{dead}.5.0.tmp")),
        env.config.join(format!(".settings.json.{dead}.tmp")),
    ];
    for f in std::iter::once(&left).chain(&keep) {
        fs::copy(&settings, f).unwrap();
    }

    let report = doctor(&env);
    assert!(
        report.contains("interrupted rewrite of settings.json")
            && report.contains(&left.display().to_string()),
        "{report}"
    );
    for f in &keep {
        assert!(!report.contains(&f.display().to_string()), "{report}");
    }
    assert!(left.exists(), "doctor changes nothing");

    let out = env.cmd("reflect-toggle").arg("on").output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(!left.exists(), "the next toggle removes it");
    assert!(
        keep.iter().all(|f| f.exists()),
        "only stale temps of settings.json go"
    );
    assert!(!doctor(&env).contains("interrupted rewrite of settings.json"));
}

/// A `forget` killed while it rewrote a backup left the temp copy in `backups/`, never removed
/// and not reported.
#[test]
fn regression_a_killed_backup_rewrite_is_reported_and_swept() {
    let env = Env::new();
    let out = env.cmd("reflect-toggle").arg("on").output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let backups = env.data.join("backups");
    let left = backups.join(format!(
        ".home-signals.jsonl.20260101T000000.000000Z.{}.9.0.tmp",
        dead_pid()
    ));
    fs::create_dir_all(&backups).unwrap();
    fs::write(&left, "{\"content\":\"forgotten text\"}\n").unwrap();
    let report = doctor(&env);
    assert!(report.contains(&left.display().to_string()), "{report}");
    // The next backup (here: of settings.json, by `off`) sweeps the dir it writes into.
    let out = env.cmd("reflect-toggle").arg("off").output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(!left.exists());
}
