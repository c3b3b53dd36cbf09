use super::*;

fn after_action() -> Situation {
    Situation {
        actions: 3,
        ..Situation::default()
    }
}

fn rules_of(text: &str, situation: &Situation) -> Option<Verdict> {
    let read = Reading::of(text);
    let raw = read.prose.to_lowercase();
    rules(&read, &raw, situation)
}

fn kind_of(text: &str, situation: &Situation) -> Option<Kind> {
    rules_of(text, situation).map(|v| v.kind)
}

/// Learning moments, each with the kind it must get (written for these tests).
const POSITIVES: &[(&str, &str)] = &[
    ("No, put the helper in utils.rs", "correction"),
    ("nope, that breaks the build", "correction"),
    ("Use ripgrep instead of grep here", "correction"),
    (
        "that's the wrong config file, look at app.toml",
        "correction",
    ),
    (
        "Don't touch the migrations, they are generated",
        "correction",
    ),
    ("Please do not push until I say so", "correction"),
    ("You forgot to update the changelog", "correction"),
    (
        "I don't like this approach, it hides the error",
        "correction",
    ),
    ("Why did you delete the fixtures?", "correction"),
    ("stop", "correction"),
    ("Are you really sure about that?", "correction"),
    ("why didn't you run the linter first?", "correction"),
    ("The limit is 42, not 24", "correction"),
    ("なぜテストを実行しなかったのですか", "correction"),
    ("but the retry belongs in the client, right?", "correction"),
    (
        "Nein, nimm lieber die bestehende Funktion statt einer neuen",
        "correction",
    ),
    (
        "そのファイルではなく config.yaml を直してください",
        "correction",
    ),
    ("We always run cargo fmt before committing", "convention"),
    (
        "Never hardcode credentials; read them from the environment",
        "convention",
    ),
    ("In this repo tests live next to the code", "convention"),
    (
        "Bitte immer die Tests vor dem Commit laufen lassen",
        "convention",
    ),
    ("今後は必ずテストを書いてください", "convention"),
    ("I prefer short answers without preamble", "preference"),
    ("ask me before you install anything", "preference"),
    ("Remember that staging uses a separate database", "remember"),
    (
        "No, remember that staging uses a separate database",
        "correction",
    ),
    ("Always ask me before deleting files", "preference"),
    ("keep in mind the API is rate limited to 10 rps", "remember"),
    ("Merk dir: das Staging nutzt Port 8443", "remember"),
    (
        "このプロジェクトでは pnpm を使うことを覚えておいて",
        "remember",
    ),
];

/// Near misses: ordinary requests, questions, pasted logs, praise.
const NEGATIVES: &[&str] = &[
    "now add a logout button to the header",
    "what does this function return?",
    "ok continue",
    "yes, do it",
    "Getting this:\n  error[E0308]: never type fallback; always failing with wrong type",
    "no problem, take your time",
    "No, still failing",
    "Great, thanks!",
    "The spinner never disappears after loading",
    "can you explain why the cache is stale?",
    "run the tests",
    "we might want to use a queue instead of polling?",
    "add it to the docs and don't commit yet",
    "why is the build slow?",
    "Schau dir bitte die Logs an",
    "テストを実行してください",
];

#[test]
fn the_rules_classify_learning_moments_by_kind() {
    for (text, kind) in POSITIVES {
        assert_eq!(
            kind_of(text, &after_action()).as_ref().map(Kind::as_str),
            Some(*kind),
            "{text}"
        );
    }
}

#[test]
fn the_rules_pass_over_ordinary_messages() {
    for text in NEGATIVES {
        assert_eq!(kind_of(text, &after_action()), None, "{text}");
    }
}

#[test]
fn the_rules_need_something_for_a_correction_to_correct() {
    let fresh = Situation::default();
    assert_eq!(kind_of("No, put the helper in utils.rs", &fresh), None);
    assert_eq!(
        kind_of("We always run cargo fmt before committing", &fresh),
        Some(Kind::Convention)
    );
}

#[test]
fn for_the_rules_a_refused_tool_call_tips_a_weak_cue_into_a_correction() {
    let text = "but the config is generated";
    assert_eq!(kind_of(text, &after_action()), None);
    let refused = Situation {
        actions: 1,
        rejected: true,
        ..Situation::default()
    };
    assert_eq!(kind_of(text, &refused), Some(Kind::Correction));
}

#[test]
fn the_rules_give_replacements_high_confidence() {
    let v = rules_of("use yarn instead of npm", &after_action()).unwrap();
    assert_eq!((v.kind, v.confidence), (Kind::Correction, 3));
    let v = rules_of("no, that is wrong", &after_action()).unwrap();
    assert!(v.confidence < 3);
}

/// `prose` as it was: a cut at each marker in turn.
fn prose_cut_in_turn(text: &str) -> &str {
    let mut end = text.len().min(PROSE_MAX);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut prose = &text[..end];
    for marker in ["```", ":\n", ":\\\n", ": \\\n", ":\r\n"] {
        if let Some(at) = prose.find(marker) {
            prose = &prose[..at];
        }
    }
    prose
}

#[test]
fn prose_cuts_at_the_earliest_marker() {
    let long = format!("{}:\nlog", "word ".repeat(119));
    for text in [
        "",
        "plain words",
        "see: this",
        "Getting this:\nlog",
        "a: \\\nb:\nc",
        "x:\\\ny",
        "w:\r\nz",
        "code ```a:\nb``` after: \\\n",
        "ratio 3:1 then:\nthe paste",
        "::\n",
        "ends with a colon:",
        "é:\nü",
        long.as_str(),
    ] {
        assert_eq!(prose(text), prose_cut_in_turn(text), "{text:?}");
    }
}

#[test]
fn only_the_prose_before_a_paste_is_read() {
    assert_eq!(prose("Getting this:\nnever always wrong"), "Getting this");
    assert_eq!(prose("see ```never``` here"), "see ");
    assert_eq!(normalize("Don't   STOP!"), " dont stop ");
}

/// `normalize` as it was before its byte-at-a-time ASCII path: a char at a time.
fn normalize_by_chars(text: &str) -> String {
    let mut out = String::from(" ");
    for c in text.chars() {
        if c == '\'' || c == '’' || c == '`' {
            continue;
        }
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.ends_with(' ') {
            out.push(' ');
        }
    }
    if !out.ends_with(' ') {
        out.push(' ');
    }
    out
}

#[test]
fn normalize_reads_ascii_and_other_scripts_alike() {
    for text in [
        "",
        "'",
        "Don't   STOP!",
        "it`s `code` here",
        "Ünïcode ÄÖÜ ẞ İstanbul ΣΑΣ",
        "don’t — use “quotes” …",
        "日本語、テキスト。違う",
        "mixed123_abc-DEF\tGHI\n\u{3000}jkl",
        "ﬁ ligature and ǅ titlecase",
    ] {
        assert_eq!(normalize(text), normalize_by_chars(text), "{text:?}");
    }
}

#[test]
fn praise_and_shared_commands() {
    let praise = |text| is_praise(&Reading::of(text));
    assert!(praise("Perfect, that works"));
    assert!(praise("genau so"));
    assert!(!praise("great, but the test still fails"));
    assert!(!praise("greatly reduce the size"));
    let command = |text| shared_command(&Reading::of(text));
    assert_eq!(
        command("please run `cargo test -p core` first").as_deref(),
        Some("cargo test -p core")
    );
    assert_eq!(
        command("<bash-input>make lint</bash-input>").as_deref(),
        Some("make lint")
    );
    assert_eq!(command("use `foo.rs`"), None);
    // The user's own housekeeping in bash mode is no command the project needs.
    for chore in [
        "cd ../../",
        "git push origin main",
        "git commit -a -m \"Simplified\"",
        "cursor ./",
        "git submodule add git@example.com:me/conf.git",
    ] {
        let typed = format!("<bash-input>{chore}</bash-input>");
        assert_eq!(shared_command(&Reading::of(&typed)), None, "{chore}");
    }
    assert_eq!(
        command("<bash-input>nix flake check ./systems</bash-input>").as_deref(),
        Some("nix flake check ./systems")
    );
}
