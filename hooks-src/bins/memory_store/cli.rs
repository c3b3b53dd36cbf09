//! The verbs of memory-store and their flags (spec/INTERFACE.md is the contract).
// clap prints these doc comments as `--help`, where `<config dir>` is meant as written, not as HTML.
#![allow(rustdoc::invalid_html_tags)]

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(
    name = super::PROGRAM,
    version,
    about = "Read and manage reflect's learning signals",
    long_about = "Read and manage reflect's learning signals.\n\n\
        Signals live in <data dir>/signals.jsonl; the data dir is $REFLECT_HOME, else \
        $CLAUDE_CONFIG_DIR/reflections, else ~/.claude/reflections.\n\
        Exit codes: 0 success, 1 operational error, 2 usage error."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Add signals: one JSON object, or `-` to read objects (JSON lines or an array) from stdin.
    /// Missing fields are filled, secrets redacted, repeats counted instead of stored twice; the
    /// store assigns the id. Prints one line per object, in order: the id it was stored under or
    /// counted for.
    Append(Append),
    /// Print one signal (from the store, else the archive) as JSON.
    Get(Get),
    /// List signals matching every given filter (oldest first).
    Query(Query),
    /// Change signals' status, confidence, category or tags (all the ids given, or none when
    /// one is unknown).
    Update(Update),
    /// Write an approved learning into FILE under "## NAME" (file backed up first, created from a
    /// minimal template if missing; its directory must exist unless --mkdir), mark the signal
    /// promoted and add it to the learnings index.
    Promote(Promote),
    /// Mark signals dismissed (all ids must exist; otherwise nothing changes).
    Dismiss(Dismiss),
    /// Delete signals for good: from the store, the archive, the learnings index and reflect's backups.
    Forget(Forget),
    /// Move signals to signals.archive.jsonl (default: promoted and dismissed ones).
    Archive(Archive),
    /// Apply the TTL rules: drop captured signals older than 14 days (never verified ones), flag
    /// analyzed ones older than 30 days for review, archive promoted and dismissed ones.
    Prune(Prune),
    /// Counts by status, type and confidence. statusline: "reflect: N pending", or nothing.
    Stats(Stats),
    /// Print every signal of the store (redacted again) as JSON lines or CSV.
    Export(Export),
    /// Convert v2 lines to schema v1 in place and remove v1's `## Self-Improvement` section from
    /// <config dir>/CLAUDE.md (idempotent, backed up); replace legacy hook entries in settings.json
    /// with ours when the binaries are installed in <data dir>/bin (else say to run reflect-toggle on).
    Migrate(Migrate),
    /// Check the install, the hooks and the store; say what is wrong and how to fix it.
    Doctor(Doctor),
    /// Set an approved Claude Code setting in settings.json (backed up, written atomically, every
    /// other byte kept): KEY dotted from the top level (attribution.commit), VALUE a JSON scalar
    /// (false, 90, '""'). Keys that run commands or grant permissions are refused.
    Setting(Setting),
    /// The second look: what the user typed in the project's sessions that capture did not
    /// store and /reflect has not looked at yet, the likeliest learning moments first within a
    /// budget, grouped by session; it ends with the command that marks them read (--mark).
    Digest(Digest),
}

#[derive(Args)]
pub struct Append {
    /// A JSON object such as '{"type":"correction","content":"Use pnpm, not npm"}', JSON lines,
    /// or - (stdin); {"same_as":"ID","context":"…",…} adds a sighting to a stored signal
    pub json: String,
}

#[derive(Args)]
pub struct Setting {
    /// The setting, dotted from the top level: includeCoAuthoredBy, attribution.commit
    pub key: String,
    /// Its value as JSON: true, false, a number or a quoted string ('""' for an empty one)
    pub value: String,
    /// The settings file (default: <config dir>/settings.json; a project's is
    /// .claude/settings.json)
    #[arg(long, value_name = "FILE")]
    pub settings: Option<PathBuf>,
}

#[derive(Args)]
pub struct Get {
    /// The signal's id (SIG-…)
    pub id: String,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum QueryFormat {
    Jsonl,
    Json,
    Table,
    Index,
}

#[derive(Args)]
pub struct Query {
    /// captured, analyzed, promoted, dismissed or archived (repeatable: any of them)
    #[arg(long = "status", value_name = "S")]
    pub statuses: Vec<String>,
    /// Signal type, e.g. correction (repeatable: any of them)
    #[arg(long = "type", value_name = "T")]
    pub kinds: Vec<String>,
    /// Signals captured in this session
    #[arg(long, value_name = "SID")]
    pub session: Option<String>,
    /// Signals of DIR's project: its repository (the nearest directory at or above DIR that
    /// holds a .git, else DIR) and every directory below it, nested repositories and submodules
    /// excepted (they are projects of their own)
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// With --project: also the personal preferences captured in other projects (they hold
    /// everywhere); the index marks them "(global)"
    #[arg(long)]
    pub with_global: bool,
    /// Signals carrying this tag (repeatable: any of them)
    #[arg(long = "tag", value_name = "T")]
    pub tags: Vec<String>,
    /// Newer than a span (30m, 12h, 7d, 2w) or a date (2026-11-01)
    #[arg(long)]
    pub since: Option<String>,
    /// Keep only the N newest matches
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// jsonl (as stored), json, table, or index: one short line per signal (id, type, episodes
    /// seen, confidence, project/session, first 80 chars of the lesson and its evidence), what
    /// the user said first, then the rest; each by sessions, then most often seen, then most
    /// confident, then newest
    #[arg(long, value_enum, default_value = "jsonl")]
    pub format: QueryFormat,
    /// With --format index: how much it may take, in tokens (characters / 4; default 2000); it
    /// ends saying how many it left out
    #[arg(long, value_name = "N")]
    pub budget_tokens: Option<usize>,
}

#[derive(Args)]
pub struct Update {
    /// The signals to change (all of them, or none when one is unknown)
    #[arg(required = true, value_name = "ID")]
    pub ids: Vec<String>,
    /// captured, analyzed, promoted, dismissed or archived
    #[arg(long)]
    pub status: Option<String>,
    /// 1 low, 2 medium, 3 high, 4 verified by the user
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=4))]
    pub confidence: Option<u8>,
    /// A short word for the area (build, test, git, style, tooling…)
    #[arg(long)]
    pub category: Option<String>,
    /// Add a tag (repeatable)
    #[arg(long = "tag", value_name = "T")]
    pub tags: Vec<String>,
}

#[derive(Args)]
pub struct Promote {
    /// The signal the learning comes from
    pub id: String,
    /// The Markdown file to write into (CLAUDE.md, a rules file, an auto memory topic…)
    #[arg(long, value_name = "FILE")]
    pub target: PathBuf,
    /// The learning: one line, added as a bullet
    #[arg(long, value_name = "TEXT")]
    pub content: String,
    /// Section heading, one line (default from the type: Conventions, Preferences, Commands,
    /// Gotchas…)
    #[arg(long, value_name = "NAME")]
    pub section: Option<String>,
    /// Create FILE's directory when it does not exist (else a missing directory is refused as a
    /// mistyped path)
    #[arg(long)]
    pub mkdir: bool,
}

#[derive(Args)]
pub struct Dismiss {
    /// The signals to dismiss
    #[arg(required = true, value_name = "ID")]
    pub ids: Vec<String>,
}

#[derive(Args)]
pub struct Forget {
    /// The signals to delete (each must exist, else nothing is deleted)
    #[arg(value_name = "ID")]
    pub ids: Vec<String>,
    /// Every signal of this session (and what capture's cursor keeps of it)
    #[arg(long, value_name = "SID")]
    pub session: Option<String>,
    /// Every signal captured in DIR or below it (and what the cursors keep of its sessions)
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
}

#[derive(Args)]
pub struct Archive {
    /// Only signals older than N days
    #[arg(long, value_name = "N")]
    pub days: Option<u32>,
    /// Only signals of this status (repeatable; default: promoted and dismissed)
    #[arg(long = "status", value_name = "S")]
    pub statuses: Vec<String>,
}

#[derive(Args)]
pub struct Prune {}

#[derive(Clone, Copy, ValueEnum)]
pub enum StatsFormat {
    Text,
    Json,
    Statusline,
}

#[derive(Args)]
pub struct Stats {
    /// text, json, or statusline ("reflect: N pending", or nothing)
    #[arg(long, value_enum, default_value = "text")]
    pub format: StatsFormat,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ExportFormat {
    Jsonl,
    Csv,
}

#[derive(Args)]
pub struct Export {
    /// jsonl (one signal a line) or csv
    #[arg(long, value_enum, default_value = "jsonl")]
    pub format: ExportFormat,
    /// Include the archive
    #[arg(long)]
    pub archive: bool,
}

#[derive(Args)]
pub struct Migrate {}

#[derive(Args)]
pub struct Doctor {}

#[derive(Clone, Copy, ValueEnum)]
pub enum DigestFormat {
    Text,
    Jsonl,
}

#[derive(Args)]
pub struct Digest {
    /// List the sessions of DIR's project (default: the current directory's): its repository
    /// (the nearest directory at or above DIR that holds a .git, else DIR) and every directory
    /// below it, nested repositories excepted
    #[arg(long, value_name = "DIR", conflicts_with = "all")]
    pub project: Option<PathBuf>,
    /// List the sessions of every project
    #[arg(long)]
    pub all: bool,
    /// Only this session (found through what capture recorded, else under <config
    /// dir>/projects/)
    #[arg(long, value_name = "SID")]
    pub session: Option<String>,
    /// The session /reflect runs in: listed with the project's sessions even before capture
    /// has recorded it
    #[arg(long, value_name = "SID")]
    pub current: Option<String>,
    /// Only prompts typed since a span (30m, 12h, 7d, 2w) or a date (2026-11-01)
    #[arg(long)]
    pub since: Option<String>,
    /// Read this transcript instead of finding the sessions (repeatable); the session is the
    /// file's name
    #[arg(long = "transcript", value_name = "FILE")]
    pub transcripts: Vec<PathBuf>,
    /// How much the listed prompts may take, in tokens (characters / 4)
    #[arg(long, value_name = "N", default_value_t = reflect_app::digest::DEFAULT_BUDGET_TOKENS)]
    pub budget_tokens: usize,
    /// text: for the model to read; jsonl: one object a prompt (session_id, project, line, uuid,
    /// timestamp, text, answering, probability, typed, pasted), the rest on stderr
    #[arg(long, value_enum, default_value = "text")]
    pub format: DigestFormat,
    /// Mark what a digest read as looked at: the name it printed (d…), or one session's
    /// SESSION:LINE:TURN (repeatable); lists nothing
    #[arg(long = "mark", value_name = "NAME")]
    pub marks: Vec<String>,
    /// Print one prompt in full (past 16 KB, its start and end; one that is mostly paste, a log
    /// or a file, past 4 KB unless --whole) after the end of the assistant
    /// turn it answers and before the start of the answer and the user's next prompt, redacted:
    /// SESSION:LINE, the session of a digest's heading (or a unique prefix of it, as the index
    /// prints) and the line of its L<line> (repeatable); at a failed or refused tool call's line
    /// (a failure's `source.line`), the call, its error and the later calls of its turn, each ok
    /// or failed; SESSION alone: each call of the session that failed or was refused, a line
    /// each; lists nothing
    #[arg(long = "show", value_name = "SESSION:LINE", conflicts_with = "marks")]
    pub show: Vec<String>,
    /// With --show: print a prompt that is mostly paste up to 16 KB too, as any other
    #[arg(long = "whole", requires = "show")]
    pub whole: bool,
}
