//! The toggle's runner (`skills/self-reflect-toggle/run-toggle`) on first use, with stand-in binaries:
//! which reflect-toggle it runs, and how it installs a release archive all or nothing (pinned SHA-256,
//! `--version` of every binary, a temp dir inside the data dir, nothing written into the plugin folder).
//! The archives are served as `file://` URLs here (curl reads them); `tests/release/first-use` runs the
//! same runner on the real release build over HTTP on 127.0.0.1.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::skills::{fake_plugin, repo, sh};
use crate::util::{stdout, Env};

use reflect_app::doctor::BINARIES as BINS;

const RUNNER: &str = "skills/self-reflect-toggle/run-toggle";

/// The Rust target triple the runner asks for on this machine.
fn host_target() -> String {
    let arch = std::env::consts::ARCH;
    match std::env::consts::OS {
        "linux" => format!("{arch}-unknown-linux-gnu"),
        "macos" => format!("{arch}-apple-darwin"),
        os => panic!("no release target for {os}"),
    }
}

/// A plugin root holding the runner at its real path and a plugin.json of `version`.
fn plugin(env: &Env, version: &str) -> PathBuf {
    let root = fake_plugin(env, RUNNER);
    set_version(&root, version);
    root
}

fn set_version(root: &Path, version: &str) {
    fs::create_dir_all(root.join(".claude-plugin")).unwrap();
    fs::write(
        root.join(".claude-plugin/plugin.json"),
        format!("{{\n  \"name\": \"self-improvement\",\n  \"version\": \"{version}\"\n}}\n"),
    )
    .unwrap();
}

/// Six stand-ins in `dir`: each answers `--version` with `version`, and otherwise prints
/// `TAG: NAME ARGS`. A child process writes them: a file this process wrote can be "busy" for exec
/// while another test thread forks.
fn stand_ins(dir: &Path, version: &str, tag: &str) {
    let mut script = String::from("set -e\nmkdir -p \"$1\"\n");
    for b in BINS {
        script += &format!(
            "printf '#!/bin/sh\\nif [ \"$1\" = --version ]; then echo \"{b} {version}\"; exit 0; fi\\n\
             echo \"{tag}: {b} $*\"\\n' > \"$1/{b}\"\nchmod 755 \"$1/{b}\"\n"
        );
    }
    let ok = Command::new("sh")
        .args(["-c", &script, "sh"])
        .arg(dir)
        .status()
        .unwrap();
    assert!(ok.success());
}

/// Write an executable through a child process (see [`stand_ins`]).
fn exe(path: &Path, body: &str) {
    let ok = Command::new("sh")
        .args([
            "-c",
            "mkdir -p \"$(dirname \"$2\")\" && printf %s \"$1\" > \"$2\" && chmod 755 \"$2\"",
            "sh",
            body,
        ])
        .arg(path)
        .status()
        .unwrap();
    assert!(ok.success());
}

/// The release server's tree (`download/v<version>/<archive>`), served as a `file://` URL.
fn server(env: &Env) -> PathBuf {
    env.dir.path().join("server")
}

fn url(env: &Env) -> PathBuf {
    PathBuf::from(format!("file://{}", server(env).display()))
}

/// Publish an archive named for `named` whose binaries report `reported`; returns its directory.
fn publish(env: &Env, named: &str, reported: &str) -> PathBuf {
    let name = format!("reflect-{named}-{}", host_target());
    let stage = env.dir.path().join(format!("stage-{named}-{reported}"));
    stand_ins(&stage.join(&name), reported, "release");
    let dest = server(env).join(format!("download/v{named}"));
    fs::create_dir_all(&dest).unwrap();
    let ok = Command::new("tar")
        .arg("-C")
        .arg(&stage)
        .arg("-czf")
        .arg(dest.join(format!("{name}.tar.gz")))
        .arg(&name)
        .status()
        .unwrap();
    assert!(ok.success());
    dest
}

/// Pin the archives in `assets` into the plugin, with the project's own script.
fn pin(root: &Path, assets: &Path) {
    let out = Command::new(repo().join("scripts/pin-release"))
        .arg("--plugin")
        .arg(root)
        .arg(assets)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
}

/// Every path under `dir`, sorted (to show that nothing was added).
fn tree(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).into_iter().flatten().flatten() {
            if e.file_type().unwrap().is_dir() {
                todo.push(e.path());
            }
            out.push(e.path());
        }
    }
    out.sort();
    out
}

fn run(env: &Env, root: &Path, args: &[&str], vars: &[(&str, &Path)]) -> String {
    let out = sh(env, &root.join(RUNNER), args, vars);
    assert_eq!(out.status.code(), Some(0), "the runner always exits 0");
    stdout(&out)
}

/// The installed reflect-toggle reports `version`.
fn assert_installed(env: &Env, version: &str) {
    let out = Command::new(env.data.join("bin/reflect-toggle"))
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(stdout(&out).trim(), format!("reflect-toggle {version}"));
}

/// The runner said `why`, that nothing was installed and what to do, and nothing was.
fn assert_refused(env: &Env, text: &str, why: &str) {
    assert!(text.contains(why), "{text}");
    assert!(text.contains("Nothing was installed"), "{text}");
    assert!(text.contains("What to do"), "{text}");
    assert_nothing_installed(env);
}

/// Nothing of an install attempt is left: no staging dir in the data dir, no bin/.
fn assert_nothing_installed(env: &Env) {
    assert!(!env.data.join("bin").exists(), "bin/ was created");
    let leftovers: Vec<_> = tree(&env.data)
        .into_iter()
        .filter(|p| p.to_string_lossy().contains(".install."))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn runner_prefers_dist_then_a_current_install_and_forwards_arguments() {
    let env = Env::new();
    let root = plugin(&env, "0.2.0");
    let nowhere = PathBuf::from("file:///nonexistent-release-server");
    let vars = [("REFLECT_RELEASE_URL", nowhere.as_path())];
    // A developer's dist/ wins (scripts/install.sh built it).
    stand_ins(&root.join("dist"), "0.2.0", "dist");
    assert_eq!(
        run(&env, &root, &["on", "--dry-run"], &vars),
        "dist: reflect-toggle on --dry-run\n"
    );
    fs::remove_dir_all(root.join("dist")).unwrap();
    // Installed at the plugin's version (or newer): used as it is, no download.
    stand_ins(&env.data.join("bin"), "0.2.0", "installed");
    assert_eq!(
        run(&env, &root, &["off"], &vars),
        "installed: reflect-toggle off\n"
    );
    stand_ins(&env.data.join("bin"), "0.10.0", "newer");
    assert_eq!(run(&env, &root, &[], &vars), "newer: reflect-toggle \n");
    // A failing toggle is reported on stdout (a failing `!` command would abort the skill silently).
    stand_ins(&root.join("dist"), "0.2.0", "dist");
    exe(
        &root.join("dist/reflect-toggle"),
        "#!/bin/sh\necho 'reflect-toggle: settings.json: not valid JSON' >&2\nexit 1\n",
    );
    let text = run(&env, &root, &["on"], &vars);
    assert!(
        text.contains("not valid JSON") && text.contains("exited with status 1"),
        "{text}"
    );
}

#[test]
fn runner_installs_the_pinned_archive_then_the_next_version_on_update() {
    let env = Env::new();
    let root = plugin(&env, "0.1.0");
    pin(&root, &publish(&env, "0.1.0", "0.1.0"));
    let before = tree(&root);
    let url = url(&env);
    let vars = [("REFLECT_RELEASE_URL", url.as_path())];

    let text = run(&env, &root, &["on"], &vars);
    assert!(text.contains("SHA-256 verified"), "{text}");
    assert!(text.ends_with("release: reflect-toggle on\n"), "{text}");
    assert_installed(&env, "0.1.0");
    for b in BINS {
        let mode = fs::metadata(env.data.join("bin").join(b)).unwrap();
        assert_eq!(
            std::os::unix::fs::PermissionsExt::mode(&mode.permissions()) & 0o777,
            0o755
        );
    }
    assert_eq!(
        tree(&root),
        before,
        "nothing is written into the plugin folder"
    );
    assert!(
        !tree(&env.data)
            .iter()
            .any(|p| p.to_string_lossy().contains(".install.")),
        "the staging dir is removed"
    );

    // Installed now: the next call downloads nothing (the server may be gone).
    fs::remove_dir_all(server(&env)).unwrap();
    assert_eq!(
        run(&env, &root, &["status"], &vars),
        "release: reflect-toggle status\n"
    );

    // A plugin update to 0.2.0: `status` keeps the older install and says so, `on` installs 0.2.0.
    set_version(&root, "0.2.0");
    pin(&root, &publish(&env, "0.2.0", "0.2.0"));
    let text = run(&env, &root, &["status"], &vars);
    assert!(text.contains("older than the plugin (0.2.0)"), "{text}");
    assert_installed(&env, "0.1.0");
    let text = run(&env, &root, &["on"], &vars);
    assert!(text.contains("Installed reflect 0.2.0"), "{text}");
    assert_installed(&env, "0.2.0");
}

#[test]
fn runner_installs_nothing_from_a_corrupted_archive() {
    let env = Env::new();
    let root = plugin(&env, "0.1.0");
    let assets = publish(&env, "0.1.0", "0.1.0");
    pin(&root, &assets);
    let archive = assets.join(format!("reflect-0.1.0-{}.tar.gz", host_target()));
    let mut bytes = fs::read(&archive).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    fs::write(&archive, bytes).unwrap();
    let url = url(&env);
    let text = run(&env, &root, &["on"], &[("REFLECT_RELEASE_URL", &url)]);
    assert_refused(&env, &text, "does not match the one pinned");
}

#[test]
fn runner_refuses_an_archive_of_another_version() {
    let env = Env::new();
    let root = plugin(&env, "0.3.0");
    // Named and pinned as 0.3.0, but its binaries are 0.2.0 (a mislabelled upload).
    pin(&root, &publish(&env, "0.3.0", "0.2.0"));
    let url = url(&env);
    let text = run(&env, &root, &["on"], &[("REFLECT_RELEASE_URL", &url)]);
    assert_refused(&env, &text, "another version; refused");
}

#[test]
fn runner_says_what_to_do_when_no_archive_can_be_had() {
    let env = Env::new();
    let root = plugin(&env, "0.1.0");
    let url = url(&env);
    let vars = [("REFLECT_RELEASE_URL", url.as_path())];
    // No pin for this version: nothing may be downloaded; building from source is offered.
    let text = run(&env, &root, &["on"], &vars);
    assert_refused(&env, &text, "pins no checksum");
    assert!(text.contains("REFLECT_BUILD=1"), "{text}");

    // Pinned, but the server does not answer.
    pin(&root, &publish(&env, "0.1.0", "0.1.0"));
    let gone = PathBuf::from("file:///nonexistent-release-server");
    let text = run(&env, &root, &["on"], &[("REFLECT_RELEASE_URL", &gone)]);
    assert_refused(
        &env,
        &text,
        "the download of file:///nonexistent-release-server/download/v0.1.0/",
    );
    assert!(text.contains("check the network connection"), "{text}");

    // Pinned, but no release server is known at all.
    let text = run(&env, &root, &["on"], &[]);
    assert_refused(&env, &text, "no release server is known");

    // A platform no archive is built for (uname says so).
    let fake = env.dir.path().join("fakebin");
    exe(
        &fake.join("uname"),
        "#!/bin/sh\ncase \"$1\" in -m) echo mips ;; *) echo Plan9 ;; esac\n",
    );
    let path = format!(
        "{}:{}",
        fake.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let text = run(
        &env,
        &root,
        &["on"],
        &[("REFLECT_RELEASE_URL", &url), ("PATH", Path::new(&path))],
    );
    assert_refused(&env, &text, "no release archive is built for Plan9 mips");
}

#[test]
fn runner_builds_from_source_under_the_data_dir() {
    let env = Env::new();
    let root = plugin(&env, "0.1.0");
    // A stand-in for scripts/build-release that records where cargo would build.
    let record = env.dir.path().join("build-env");
    let mut script = format!(
        "#!/bin/sh\necho \"$CARGO_TARGET_DIR\" > '{}'\n[ \"$1\" = --out ] || exit 2\n",
        record.display()
    );
    for b in BINS {
        script += &format!(
            "mkdir -p \"$2\"; printf '#!/bin/sh\\nif [ \"$1\" = --version ]; then echo \"{b} 0.1.0\"; exit 0; fi\\necho \"built: {b} $*\"\\n' > \"$2/{b}\"; chmod 755 \"$2/{b}\"\n"
        );
    }
    exe(&root.join("scripts/build-release"), &script);
    let before = tree(&root);
    let fake = env.dir.path().join("fakebin");
    exe(&fake.join("cargo"), "#!/bin/sh\nexit 0\n");
    let path = format!(
        "{}:{}",
        fake.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let text = run(
        &env,
        &root,
        &["on"],
        &[
            ("REFLECT_BUILD", Path::new("1")),
            ("PATH", Path::new(&path)),
        ],
    );
    assert!(text.contains("built from source"), "{text}");
    assert!(text.ends_with("built: reflect-toggle on\n"), "{text}");
    let target = fs::read_to_string(&record).unwrap();
    assert_eq!(
        target.trim(),
        env.data.join("build/target").to_str().unwrap()
    );
    assert_eq!(
        tree(&root),
        before,
        "nothing is written into the plugin folder"
    );
    assert_installed(&env, "0.1.0");
}

#[test]
fn doctor_says_when_the_installed_binaries_are_older_than_the_plugin() {
    let env = Env::new();
    let root = plugin(&env, "0.2.0");
    stand_ins(&env.data.join("bin"), "0.1.0", "installed");
    let doctor = |plugin_root: Option<&Path>| {
        let mut cmd = env.cmd("memory-store");
        if let Some(r) = plugin_root {
            cmd.env("CLAUDE_PLUGIN_ROOT", r);
        }
        stdout(&cmd.arg("doctor").output().unwrap())
    };
    let text = doctor(Some(&root));
    assert!(
        text.contains("are version 0.1.0, older than the plugin (0.2.0)")
            && text.contains("fix: run /reflect-toggle on"),
        "{text}"
    );
    // Without the plugin's root, the installed set is judged on its own.
    let text = doctor(None);
    assert!(text.contains("ok    binaries 0.1.0 installed in"), "{text}");
    stand_ins(&env.data.join("bin"), "0.2.0", "installed");
    let text = doctor(Some(&root));
    assert!(text.contains("ok    binaries 0.2.0 installed in"), "{text}");
    // A set of mixed versions is reported too.
    exe(
        &env.data.join("bin/inject-signals"),
        "#!/bin/sh\necho 'inject-signals 0.1.5'\n",
    );
    let text = doctor(Some(&root));
    assert!(
        text.contains("older than the plugin (0.2.0)") && text.contains("0.1.5"),
        "{text}"
    );
    let text = doctor(None);
    assert!(text.contains("are of different versions"), "{text}");
}

#[test]
fn memory_store_launcher_names_its_plugin_for_doctor() {
    let env = Env::new();
    let root = fake_plugin(&env, "skills/self-reflect/memory-store");
    exe(
        &env.data.join("bin/memory-store"),
        "#!/bin/sh\necho \"root=$CLAUDE_PLUGIN_ROOT\"\n",
    );
    let out = sh(
        &env,
        &root.join("skills/self-reflect/memory-store"),
        &["doctor"],
        &[],
    );
    assert_eq!(stdout(&out), format!("root={}\n", root.display()));
}

/// Run as root through sudo (HOME kept), the runner's own `mkdir` and `mktemp` left a root-owned
/// data dir, `bin/` and binaries that the user's hooks and toggles then could not replace. What it
/// creates now takes the owner of the directory it is created in, as the binaries do.
#[test]
fn regression_the_runner_as_root_leaves_nothing_root_owned_in_a_users_data_dir() {
    use std::os::unix::fs::MetadataExt;
    if !Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| stdout(&o).trim() == "0")
    {
        eprintln!("skipped: needs root");
        return;
    }
    let env = Env::new();
    let root = plugin(&env, "0.1.0");
    pin(&root, &publish(&env, "0.1.0", "0.1.0"));
    // The user's config dir; the data dir does not exist yet.
    let user = 65534;
    std::os::unix::fs::chown(&env.config, Some(user), Some(user)).unwrap();
    let url = url(&env);
    let text = run(&env, &root, &["on"], &[("REFLECT_RELEASE_URL", &url)]);
    assert!(text.contains("SHA-256 verified"), "{text}");
    assert_installed(&env, "0.1.0");
    let root_owned: Vec<PathBuf> = std::iter::once(env.data.clone())
        .chain(tree(&env.data))
        .filter(|p| fs::symlink_metadata(p).is_ok_and(|m| m.uid() != user || m.gid() != user))
        .collect();
    assert!(root_owned.is_empty(), "{root_owned:?}");
    assert!(env.data.join("bin/reflect-toggle").exists());
}

/// A data dir that cannot be written was reported as "install Rust".
#[test]
fn regression_an_unwritable_data_dir_gets_advice_about_the_data_dir() {
    let env = Env::new();
    let root = plugin(&env, "0.1.0");
    pin(&root, &publish(&env, "0.1.0", "0.1.0"));
    // A file where a directory above the data dir should be: not even root can create it.
    let blocked = env.dir.path().join("not-a-dir");
    fs::write(&blocked, "").unwrap();
    let data = blocked.join("reflections");
    let url = url(&env);
    let text = run(
        &env,
        &root,
        &["on"],
        &[("REFLECT_RELEASE_URL", &url), ("REFLECT_HOME", &data)],
    );
    assert!(text.contains("cannot create a temp dir in"), "{text}");
    assert!(
        text.contains("make") && text.contains("a directory you own"),
        "{text}"
    );
    assert!(
        !text.contains("Rust") && !text.contains("REFLECT_BUILD"),
        "{text}"
    );
}

/// Downloads were capped at 60 s whatever their progress, so a 7 MB archive could never install
/// below ~117 kB/s. curl is now told to give up only when the transfer stalls.
#[test]
fn regression_the_download_is_given_up_only_when_it_stalls() {
    let env = Env::new();
    let root = plugin(&env, "0.1.0");
    pin(&root, &publish(&env, "0.1.0", "0.1.0"));
    // A curl that records its arguments and then fails like a dropped connection.
    let fake = env.dir.path().join("fakebin");
    let args = env.dir.path().join("curl-args");
    exe(
        &fake.join("curl"),
        &format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\necho 'curl: (56) Recv failure' >&2\nexit 56\n",
            args.display()
        ),
    );
    let path = format!(
        "{}:{}",
        fake.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let url = url(&env);
    let text = run(
        &env,
        &root,
        &["on"],
        &[("REFLECT_RELEASE_URL", &url), ("PATH", Path::new(&path))],
    );
    assert!(text.contains("Recv failure"), "{text}");
    let given: Vec<String> = fs::read_to_string(&args)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert!(
        !given.iter().any(|a| a == "--max-time" || a == "-m"),
        "no flat cap: {given:?}"
    );
    let at = given.iter().position(|a| a == "--speed-time").unwrap();
    assert!(given[at + 1].parse::<u32>().unwrap() >= 10, "{given:?}");
    assert!(given.iter().any(|a| a == "--speed-limit"), "{given:?}");
}

/// The runner names its plugin root to reflect-toggle: `on` from a plugin Claude Code installed
/// leaves the marker that lets a hook notice the plugin's uninstall.
#[test]
fn the_runner_tells_reflect_toggle_its_plugin_root() {
    let env = Env::new();
    let root = plugin(&env, "0.2.0");
    stand_ins(&root.join("dist"), "0.2.0", "dist");
    exe(
        &root.join("dist/reflect-toggle"),
        "#!/bin/sh\necho \"root=$REFLECT_PLUGIN_ROOT\"\n",
    );
    let text = run(&env, &root, &["on"], &[]);
    let canonical = root.canonicalize().unwrap();
    assert_eq!(text, format!("root={}\n", canonical.display()));
}
