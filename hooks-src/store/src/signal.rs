//! Signal schema v1: the one JSON object per line of `signals.jsonl`.
//!
//! ```json
//! {"id":"SIG-20261122-0a1b2c3d4e","version":1,"timestamp":"2026-11-22T10:23:00Z","session_id":"…",
//!  "project":"/abs/cwd","type":"correction","status":"captured","confidence":2,
//!  "source":{"hook":"PreCompact","line":412,"uuid":"…","turn":42,"file":null},
//!  "content":"Use pnpm, not npm","context":"User said: 'No, use pnpm not npm'","category":"command",
//!  "tags":["pnpm"],"related":[],"promoted_to":null,"meta":{}}
//! ```
//!
//! Readers are tolerant: unknown fields are kept (and written back), missing optional fields are
//! filled, `type`/`status` values from a future version survive a rewrite unchanged, and v2 lines
//! (`{"ts","sid","type","context","turn"}`) are read as captured signals of confidence 1.

use std::borrow::Cow;
use std::fmt;

use chrono::{DateTime, NaiveDate, NaiveDateTime, Timelike, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// An enum of known string values that keeps any other value verbatim (forward compatibility).
macro_rules! open_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident => $text:literal),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name { $($variant,)* Other(String) }

        impl $name {
            /// Every value this version knows, in schema order.
            pub const KNOWN: &'static [&'static str] = &[$($text),*];

            pub fn as_str(&self) -> &str {
                match self { $(Self::$variant => $text,)* Self::Other(s) => s }
            }
            pub fn parse(s: &str) -> Self {
                match s { $($text => Self::$variant,)* other => Self::Other(other.to_string()) }
            }
            pub(crate) fn is_known(&self) -> bool {
                !matches!(self, Self::Other(_))
            }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.pad(self.as_str()) }
        }
        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> { s.serialize_str(self.as_str()) }
        }
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s: Cow<'de, str> = Deserialize::deserialize(d)?;
                Ok(Self::parse(&s))
            }
        }
    };
}

open_enum! {
    /// What a signal is about.
    Kind {
        Correction => "correction",
        Convention => "convention",
        Preference => "preference",
        Command => "command",
        Failure => "failure",
        Gotcha => "gotcha",
        Discovery => "discovery",
        Pattern => "pattern",
        ProjectFriction => "project_friction",
        Summary => "summary",
        Remember => "remember",
    }
}

impl Kind {
    /// Whether signals of this kind are "learning moments": what the user said, which the
    /// skills review first.
    pub fn is_learning(&self) -> bool {
        matches!(
            self,
            Kind::Correction | Kind::Convention | Kind::Preference | Kind::Remember
        )
    }
}

open_enum! {
    /// Lifecycle: captured → analyzed → promoted | dismissed | archived.
    Status {
        Captured => "captured",
        Analyzed => "analyzed",
        Promoted => "promoted",
        Dismissed => "dismissed",
        Archived => "archived",
    }
}

open_enum! {
    /// Whose words a signal's content is (`source.origin`): `user`, what the user typed or the
    /// reason they gave when refusing a tool call; `tool`, a tool's output (an error, a fetched
    /// page, an MCP reply), evidence of what happened and never something the user asked for;
    /// `assistant`, the assistant's or reflect's own words (a finding of /reflect, a summary).
    Origin {
        User => "user",
        Tool => "tool",
        Assistant => "assistant",
    }
}

/// Confidence levels: 1 low (seen once), 2 medium (twice), 3 high (3+), 4 verified by the user.
pub const CONFIDENCE_VERIFIED: u8 = 4;

/// Where a signal came from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Source {
    #[serde(default)]
    pub hook: Option<String>,
    /// 1-based line of the transcript entry that triggered the signal.
    #[serde(default)]
    pub line: Option<u64>,
    /// `uuid` of that transcript entry.
    #[serde(default)]
    pub uuid: Option<String>,
    #[serde(default)]
    pub turn: Option<u64>,
    #[serde(default)]
    pub file: Option<String>,
    /// Whose words the content is; absent in signals stored before it existed (see
    /// [`Signal::origin`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A source written as a bare string by older tools (`"source":"hook"`) is read as its hook name.
fn lenient_source<'de, D: Deserializer<'de>>(d: D) -> Result<Source, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Full(Source),
        Name(String),
        Nothing(()),
    }
    Ok(match Either::deserialize(d)? {
        Either::Full(s) => s,
        Either::Name(hook) => Source {
            hook: Some(hook),
            ..Source::default()
        },
        Either::Nothing(()) => Source::default(),
    })
}

fn one() -> u32 {
    1
}
fn confidence_low() -> u8 {
    1
}
fn captured() -> Status {
    Status::Captured
}

/// One learning signal (schema v1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Signal {
    pub id: String,
    #[serde(default = "one")]
    pub version: u32,
    #[serde(default)]
    pub timestamp: String,
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub project: Option<String>,
    #[serde(rename = "type")]
    pub kind: Kind,
    #[serde(default = "captured")]
    pub status: Status,
    #[serde(default = "confidence_low")]
    pub confidence: u8,
    #[serde(default, deserialize_with = "lenient_source")]
    pub source: Source,
    #[serde(default)]
    pub content: String,
    #[serde(default)]
    pub context: String,
    /// What resolved a failure: the call that then worked, or what the user said instead
    /// (see `reflect_detect::episode`). Written only when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<String>,
    #[serde(default)]
    pub category: Option<String>,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub related: Vec<String>,
    #[serde(default)]
    pub promoted_to: Option<String>,
    #[serde(default)]
    pub meta: Map<String, Value>,
    /// Fields this version does not know; written back unchanged.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Signal {
    /// A fresh captured signal with everything but the essentials empty. The store assigns `id`.
    pub fn new(kind: Kind, content: impl Into<String>) -> Signal {
        Signal {
            id: String::new(),
            version: 1,
            timestamp: reflect_base::fsutil::now_rfc3339(),
            session_id: None,
            project: None,
            kind,
            status: Status::Captured,
            confidence: 1,
            source: Source::default(),
            content: content.into(),
            context: String::new(),
            resolution: None,
            category: None,
            tags: Vec::new(),
            related: Vec::new(),
            promoted_to: None,
            meta: Map::new(),
            extra: Map::new(),
        }
    }

    /// When the signal was captured, if its timestamp can be read.
    pub(crate) fn time(&self) -> Option<DateTime<Utc>> {
        parse_time(&self.timestamp)
    }

    /// Whose words the content is: `source.origin` (a value this version does not know counts as
    /// a tool's), or, for a signal stored before it existed, what its kind says (a failure quotes
    /// a tool, a summary or a finding of /reflect is the assistant's, every other kind the user's).
    pub fn origin(&self) -> Origin {
        match &self.source.origin {
            // Words of unknown origin are not taken for the user's: read as a tool's.
            Some(origin) if !origin.is_known() => return Origin::Tool,
            Some(origin) => return origin.clone(),
            None => {}
        }
        match self.kind {
            Kind::Failure => Origin::Tool,
            Kind::Summary | Kind::Gotcha | Kind::Discovery | Kind::ProjectFriction => {
                Origin::Assistant
            }
            _ => Origin::User,
        }
    }

    /// Whether the content is the user's own words (see [`Signal::origin`]).
    pub fn is_users_words(&self) -> bool {
        self.origin() == Origin::User
    }

    /// How many times this signal has been seen (`meta.seen`, at least 1).
    pub fn seen(&self) -> u64 {
        self.meta
            .get("seen")
            .and_then(Value::as_u64)
            .unwrap_or(1)
            .max(1)
    }

    /// How many sessions this signal was seen in (at least 1): `meta.sessions` once sightings
    /// in other sessions were folded in, else those its own session and its kept sightings
    /// (`meta.sightings`) name. A rule said in two sessions is a habit; one repeated in one
    /// session may be that task's instruction.
    pub fn sessions(&self) -> u64 {
        self.sessions_counted().max(1)
    }

    /// `meta.sessions`, else the number of sessions the signal names; 0 when it names none.
    fn sessions_counted(&self) -> u64 {
        match self.meta.get("sessions").and_then(Value::as_u64) {
            Some(n) => n,
            None => self.sessions_named().len() as u64,
        }
    }

    /// The sessions its own session and its kept sightings name, each once.
    fn sessions_named(&self) -> Vec<&str> {
        let kept = match self.meta.get("sightings") {
            Some(Value::Array(kept)) => kept.as_slice(),
            _ => &[],
        };
        let mut named: Vec<&str> = Vec::new();
        let sightings = kept.iter().filter_map(|e| e["session_id"].as_str());
        for s in self.session_id.as_deref().into_iter().chain(sightings) {
            if !s.is_empty() && !named.contains(&s) {
                named.push(s);
            }
        }
        named
    }

    /// Count the sessions of later sightings (`sessions`, each once) into `meta.sessions`: those
    /// not already named by the signal's own session or its kept sightings are new. (A session
    /// whose sighting a rewrite dropped from the kept ones counts again: an overcount only past
    /// [`crate::sighting::SIGHTINGS_KEPT`] sightings.)
    pub(crate) fn add_sessions(&mut self, sessions: &[String]) {
        let named = self.sessions_named();
        let new = sessions
            .iter()
            .filter(|s| !named.contains(&s.as_str()))
            .count() as u64;
        let total = self.sessions_counted() + new;
        if new > 0 && total > 1 {
            self.meta.insert("sessions".into(), Value::from(total));
        }
    }

    /// Record `extra` more sightings: `meta.seen` grows and confidence follows it (2 sightings →
    /// medium, 3+ → high). A verified signal stays verified.
    pub fn add_sightings(&mut self, extra: u64) {
        if extra == 0 {
            return;
        }
        let seen = self.seen() + extra;
        self.meta.insert("seen".into(), Value::from(seen));
        self.confidence = confidence_after(self.confidence, seen);
    }

    /// The tool call a failure signal is about (`meta.tool_use_id`), when known.
    pub fn tool_use_id(&self) -> Option<&str> {
        self.meta
            .get("tool_use_id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    }

    /// Every tool call a failure signal reports: `meta.tool_use_id`, and the calls of the retries
    /// it stands for (`meta.tool_use_ids`).
    pub fn tool_use_ids(&self) -> Vec<String> {
        let mut calls: Vec<String> = self.tool_use_id().map(str::to_string).into_iter().collect();
        if let Some(Value::Array(more)) = self.meta.get("tool_use_ids") {
            for c in more.iter().filter_map(Value::as_str) {
                if !c.is_empty() && !calls.iter().any(|k| k == c) {
                    calls.push(c.to_string());
                }
            }
        }
        calls
    }

    /// Fold `n` recurrence records (the newest at `last_seen`) into this signal.
    pub(crate) fn fold_recurrences(&mut self, n: u64, last_seen: &str) {
        self.add_sightings(n);
        if !last_seen.is_empty() {
            self.meta.insert("last_seen".into(), Value::from(last_seen));
        }
    }

    /// The content as a list shows it in about `max` characters: a failure's resolution follows
    /// it after an arrow, each cut to its share (`Bash failed: npm ERR! Unsupported URL Type
    /// "workspace:" → \`pnpm install\``).
    pub fn headline(&self, max: usize) -> String {
        use reflect_base::text::one_line;
        match self.resolution.as_deref().filter(|r| !r.is_empty()) {
            Some(how) => {
                let how = one_line(how, max * 2 / 5);
                let room = max.saturating_sub(how.chars().count() + 3).max(max / 2);
                format!("{} → {how}", one_line(&self.content, room))
            }
            None => one_line(&self.content, max),
        }
    }

    /// The dedup fingerprint kept in `meta.dedup_key` (see [`dedup_key`]). A summary's is its
    /// session's: one summary per session, updated when the session resumes.
    pub fn dedup_key(&self) -> String {
        match (&self.kind, &self.session_id) {
            (Kind::Summary, Some(session)) => dedup_key(
                &self.kind,
                self.project.as_deref(),
                &format!("session {session}"),
            ),
            _ => dedup_key(&self.kind, self.project.as_deref(), &self.content),
        }
    }

    /// Convert a v2 line (`{"ts","sid","type","context","turn"}`) into schema v1. The id is derived
    /// from the line itself, so reading or migrating the same line twice gives the same id.
    pub(crate) fn from_v2(mut fields: Map<String, Value>, raw: &[u8]) -> Option<Signal> {
        let kind = Kind::parse(fields.remove("type")?.as_str()?);
        let ts = match fields.remove("ts") {
            Some(Value::String(s)) => s,
            Some(Value::Number(n)) => n.as_f64().and_then(epoch_to_rfc3339).unwrap_or_default(),
            _ => String::new(),
        };
        let time = parse_time(&ts);
        let timestamp = time.map(format_time).unwrap_or(ts);
        let day = time
            .map(|t| t.format("%Y%m%d").to_string())
            .unwrap_or_else(|| "00000000".into());
        let take_str = |fields: &mut Map<String, Value>, k: &str| match fields.remove(k) {
            Some(Value::String(s)) => Some(s),
            Some(Value::Null) | None => None,
            Some(other) => Some(other.to_string()),
        };
        let session_id = take_str(&mut fields, "sid");
        let context = take_str(&mut fields, "context").unwrap_or_default();
        // Named like a v1 field: it would be written twice if left in `extra`.
        let resolution = take_str(&mut fields, "resolution");
        let turn = fields.remove("turn").and_then(|v| v.as_u64());
        let mut signal = Signal::new(kind, context.clone());
        signal.id = format!("SIG-{day}-v2{:012x}", fnv1a(raw) & 0xffff_ffff_ffff);
        signal.timestamp = timestamp;
        signal.session_id = session_id;
        signal.context = context;
        signal.resolution = resolution;
        signal.source = Source {
            hook: Some("PreCompact".into()),
            turn,
            ..Source::default()
        };
        signal
            .meta
            .insert("migrated_from".into(), Value::from("v2"));
        // A leftover named like a v1 field would be written twice (by the signal and by `extra`),
        // which makes the line unreadable; such leftovers are kept under `meta.v2` instead.
        let clashing: Map<String, Value> = V1_FIELDS
            .iter()
            .filter_map(|k| fields.shift_remove(*k).map(|v| (k.to_string(), v)))
            .collect();
        if !clashing.is_empty() {
            signal.meta.insert("v2".into(), Value::Object(clashing));
        }
        signal.extra = fields;
        Some(signal)
    }
}

/// The top-level keys of a v1 signal, in schema order (what `extra` must never hold).
pub(crate) const V1_FIELDS: [&str; 16] = [
    "id",
    "version",
    "timestamp",
    "session_id",
    "project",
    "type",
    "status",
    "confidence",
    "source",
    "content",
    "context",
    "category",
    "tags",
    "related",
    "promoted_to",
    "meta",
];

/// Fields a signal writes only when set (besides [`V1_FIELDS`]): `extra` must not hold these
/// either.
pub(crate) const OPTIONAL_FIELDS: [&str; 1] = ["resolution"];

/// The keys of a signal's `source`, `origin` written only when set (what its `extra` must never
/// hold).
pub(crate) const SOURCE_FIELDS: [&str; 6] = ["hook", "line", "uuid", "turn", "file", "origin"];

/// A sighting of an already-captured signal, appended instead of rewriting the store on a hook's
/// path. Readers fold these into the target's `meta.seen` and confidence; a rewrite materializes them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recurrence {
    pub recur: String,
    #[serde(default)]
    pub timestamp: String,
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default, deserialize_with = "lenient_source")]
    pub source: Source,
    /// The tool call this sighting was about, so a later report of the same call is recognised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// The sighting's own words (redacted), kept as its evidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub said: Option<String>,
    /// What resolved the failure this time (see [`Signal::resolution`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<String>,
    /// Not a sighting: this record only completes the target with its `resolution`, found by a
    /// later pass over a failure a hook stored before the fix was known.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub completes: bool,
    /// The target's newer `content`, `context` and `meta` fields (a resumed session's summary):
    /// readers show the newest; a rewrite writes it into the signal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub update: Option<Value>,
}

/// The one definition of a signal's confidence, which every reader shows (the index, `get`,
/// `inject-signals`, the /reflect skill through them): the higher of what its source earned when
/// it was captured (1; 2 for a refused call's reason; up to 3 for words the detector is sure
/// of, or a `#` memory) and what its episodes earned — `seen` counts episodes (other sessions,
/// or other turns of one session; never retries within one), 2 episodes earn medium, 3+ high.
/// 4 (verified) only ever comes from the user confirming it (`memory-store update --confidence
/// 4`; `append` refuses it); nothing lowers it, and sightings never raise anything to it.
pub fn confidence_after(confidence: u8, seen: u64) -> u8 {
    let earned = match seen {
        0 | 1 => 1,
        2 => 2,
        _ => 3,
    };
    if confidence >= CONFIDENCE_VERIFIED {
        confidence
    } else {
        confidence.max(earned)
    }
}

/// Lowercase, letters and digits only, single spaces, bounded: "No, use PNPM!" and "no use pnpm"
/// are the same signal.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(256));
    let mut gap = false;
    for c in text.chars() {
        // ASCII first: the same test and lowercase without the Unicode tables.
        let alphanumeric = if c.is_ascii() {
            c.is_ascii_alphanumeric()
        } else {
            c.is_alphanumeric()
        };
        if alphanumeric {
            if gap && !out.is_empty() {
                out.push(' ');
            }
            gap = false;
            if c.is_ascii() {
                out.push(c.to_ascii_lowercase());
            } else {
                out.extend(c.to_lowercase());
            }
            if out.len() >= 240 {
                break;
            }
        } else {
            gap = true;
        }
    }
    out
}

/// 64-bit FNV-1a: small, stable across versions and platforms (unlike std's hasher).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// The fingerprint two signals share when they say the same thing of the same kind in the same
/// project. A failure's content is read without its volatile bits ([`failure_skeleton`]), so
/// the same error on another file, line or run is the same failure.
pub fn dedup_key(kind: &Kind, project: Option<&str>, content: &str) -> String {
    let mut material = String::new();
    material.push_str(kind.as_str());
    material.push('\0');
    material.push_str(project.unwrap_or(""));
    material.push('\0');
    if *kind == Kind::Failure {
        material.push_str(&normalize(&failure_skeleton(content)));
    } else {
        material.push_str(&normalize(content));
    }
    format!("{:016x}", fnv1a(material.as_bytes()))
}

/// A failure's words without what changes from one occurrence to the next: a word holding a
/// digit (line numbers, durations, ports, ids, hashes, versions) is dropped, and a path or URL
/// is read as its last part (what the error is about, not where it lives). "src/a.rs:3:5:
/// error: x" and "src/b.rs:9:1: error: x" are one failure; "cannot access '/tmp/*.xml'" and
/// "cannot access '/home/me/rules/'" are two, though both read "No such file or directory".
pub(crate) fn failure_skeleton(content: &str) -> String {
    let is_separator = |c: char| c == '/' || c == '\\';
    content
        .split_whitespace()
        .filter(|w| !w.contains(|c: char| c.is_ascii_digit()))
        .filter_map(|w| {
            if !w.contains(is_separator) {
                return Some(w);
            }
            w.split(is_separator)
                .rfind(|part| part.contains(char::is_alphanumeric))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Words that a rewording adds or drops without changing the instruction.
const FILLER: &[&str] = &[
    "please", "pls", "plz", "just", "really", "again", "also", "okay", "thanks", "thank", "still",
    "then", "actually", "maybe", "right", "well", "now",
];
/// Words that turn an instruction into its opposite.
const NEGATIONS: &[&str] = &[
    "not", "no", "never", "dont", "don", "without", "stop", "avoid", "cannot", "cant", "nothing",
    "none", "nor", "neither", "isnt", "isn", "arent", "aren", "wont", "won", "shouldnt", "shouldn",
    "doesnt", "doesn", "didnt", "didn",
];

/// Whether two user texts say the same instruction in other words: "Please do not commit until
/// I say so" and "do not comit until I said so, please" are one instruction; "put it in lib.rs"
/// and "put it in main.rs" are two.
///
/// On the [`normalize`]d texts (lower case, letters and digits, apostrophes dropped):
/// * length guard: both at least 12 characters, the shorter at least 0.6 of the longer (a long
///   message that repeats a rule among other things is not a paraphrase of the rule);
/// * both negated or neither ("do commit" is not "do not commit");
/// * character-trigram Dice similarity at least 0.5 (robust to typos and small rewordings);
/// * every word of four letters or more, fillers aside, has a near twin in the other text:
///   the same word, one edit apart (two for long words), or the same stem ("push"/"pushing",
///   "say"/"said"). A changed content word ("lib"/"main", "staging"/"production") breaks it;
/// * the words both texts share come in the same order ("use pnpm not npm" is not "use npm not
///   pnpm"): their longest common subsequence covers at least 0.8 of them.
pub fn same_instruction(a: &str, b: &str) -> bool {
    Said::of(a).same_as(&Said::of(b))
}

/// A user text read once for [`same_instruction`]: its normalized words, whether it is negated,
/// and its sorted character trigrams (packed in a `u64` each), so comparing it with many others
/// normalizes nothing again.
#[derive(Debug)]
struct Said {
    text: String,
    negated: bool,
    grams: Vec<u64>,
}

impl Said {
    fn of(text: &str) -> Said {
        let text = normalize(text);
        let negated = text.split(' ').any(|w| NEGATIONS.contains(&w));
        let chars: Vec<char> = std::iter::once(' ')
            .chain(text.chars())
            .chain(std::iter::once(' '))
            .collect();
        let mut grams: Vec<u64> = chars
            .windows(3)
            .map(|w| (u64::from(w[0]) << 42) | (u64::from(w[1]) << 21) | u64::from(w[2]))
            .collect();
        grams.sort_unstable();
        grams.dedup();
        Said {
            text,
            negated,
            grams,
        }
    }

    fn same_as(&self, other: &Said) -> bool {
        let (a, b) = (&self.text, &other.text);
        if a == b {
            return !a.is_empty();
        }
        let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
        if short.len() < 12 || short.len() * 10 < long.len() * 6 || self.negated != other.negated {
            return false;
        }
        if dice(&self.grams, &other.grams) < 0.5 {
            return false;
        }
        let (wa, wb): (Vec<&str>, Vec<&str>) = (a.split(' ').collect(), b.split(' ').collect());
        let twins = |from: &[&str], to: &[&str]| {
            from.iter()
                .filter(|w| w.chars().count() >= 4 && !FILLER.contains(w))
                .all(|w| to.iter().any(|t| near_words(w, t)))
        };
        if !twins(&wa, &wb) || !twins(&wb, &wa) {
            return false;
        }
        let shared_a: Vec<&str> = wa.iter().copied().filter(|w| wb.contains(w)).collect();
        let shared_b: Vec<&str> = wb.iter().copied().filter(|w| wa.contains(w)).collect();
        let shared = shared_a.len().min(shared_b.len());
        shared == 0 || lcs_len(&shared_a, &shared_b) * 10 >= shared * 8
    }
}

/// Instructions the user gave (what the store calls learning kinds), remembered with their
/// dedup keys, so that a new one that paraphrases one of them ([`same_instruction`]) in the same
/// project is counted as a recurrence of it. The store fills one from its tail, a dry run from
/// its batch.
#[derive(Debug, Default)]
pub struct Instructions(Vec<Instruction>);

#[derive(Debug)]
struct Instruction {
    project: Option<String>,
    said: Said,
    key: String,
}

impl Instructions {
    pub fn remember(&mut self, project: Option<&str>, content: &str, key: &str) {
        self.0.push(Instruction {
            project: project.map(str::to_string),
            said: Said::of(content),
            key: key.to_string(),
        });
    }

    /// The key of the latest remembered instruction of `project` that `content` paraphrases.
    pub fn paraphrased(&self, project: Option<&str>, content: &str) -> Option<&str> {
        let mut mine = self
            .0
            .iter()
            .rev()
            .filter(|i| i.project.as_deref() == project);
        let first = mine.next()?;
        let said = Said::of(content);
        std::iter::once(first)
            .chain(mine)
            .find(|i| i.said.same_as(&said))
            .map(|i| i.key.as_str())
    }
}

/// Dice coefficient of two sorted, deduplicated sets.
fn dice(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let (mut i, mut j, mut both) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                both += 1;
                i += 1;
                j += 1;
            }
        }
    }
    2.0 * both as f64 / (a.len() + b.len()) as f64
}

/// Two words that are one word with a typo or another ending.
fn near_words(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let shorter = a.len().min(b.len());
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if prefix >= 2 && prefix + 1 >= shorter {
        return true;
    }
    let allowed = if shorter <= 5 { 1 } else { 2 };
    a.len().abs_diff(b.len()) <= allowed && edit_distance(&a, &b) <= allowed
}

/// Levenshtein distance.
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let replace = prev[j] + usize::from(ca != cb);
            cur.push(replace.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Length of the longest common subsequence of two word lists.
fn lcs_len(a: &[&str], b: &[&str]) -> usize {
    let mut prev = vec![0; b.len() + 1];
    for x in a {
        let mut cur = vec![0; b.len() + 1];
        for (j, y) in b.iter().enumerate() {
            cur[j + 1] = if x == y {
                prev[j] + 1
            } else {
                prev[j + 1].max(cur[j])
            };
        }
        prev = cur;
    }
    prev[b.len()]
}

/// `SIG-YYYYMMDD-` followed by the microsecond of the (UTC) day in 10 hex digits. The store makes
/// ids under its lock and bumps past the last id it wrote, so they are unique and increasing even
/// when two writers read the same clock.
pub fn make_id(now: DateTime<Utc>, last: Option<&str>) -> String {
    let day = now.format("%Y%m%d").to_string();
    let mut micros = u64::from(now.num_seconds_from_midnight()) * 1_000_000
        + u64::from(now.nanosecond() / 1000).min(999_999);
    if let Some(prev) = last.and_then(split_id).filter(|(d, _)| *d == day) {
        micros = micros.max(prev.1 + 1);
    }
    format!("SIG-{day}-{micros:010x}")
}

/// The day and counter of an id made by [`make_id`]; other shapes give `None`.
fn split_id(id: &str) -> Option<(String, u64)> {
    let rest = id.strip_prefix("SIG-")?;
    let (day, suffix) = rest.split_once('-')?;
    if day.len() != 8 || suffix.len() < 10 || !suffix.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    Some((day.to_string(), u64::from_str_radix(suffix, 16).ok()?))
}

/// Whether `id` looks like a signal id (used to tell ids from other arguments).
pub fn looks_like_id(id: &str) -> bool {
    id.starts_with("SIG-") && id.len() > 13
}

/// Parse the timestamps found in stores: RFC 3339, a naive ISO date-time (taken as UTC), or a date.
pub fn parse_time(text: &str) -> Option<DateTime<Utc>> {
    let text = text.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Some(t.with_timezone(&Utc));
    }
    for fmt in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"] {
        if let Ok(t) = NaiveDateTime::parse_from_str(text, fmt) {
            return Some(t.and_utc());
        }
    }
    NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| t.and_utc())
}

pub(crate) fn format_time(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

fn epoch_to_rfc3339(secs: f64) -> Option<String> {
    DateTime::from_timestamp(secs as i64, 0).map(format_time)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_fields_are_exactly_what_a_signal_writes() {
        fn keys(object: &Value) -> Vec<&str> {
            object
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect()
        }
        let written = serde_json::to_value(Signal::new(Kind::Correction, "x")).unwrap();
        assert_eq!(keys(&written), V1_FIELDS);
        let mut full = Signal::new(Kind::Failure, "x");
        full.resolution = Some("y".into());
        full.source.origin = Some(Origin::Tool);
        let written = serde_json::to_value(full).unwrap();
        let mut extra = keys(&written);
        extra.retain(|k| !V1_FIELDS.contains(k));
        assert_eq!(extra, OPTIONAL_FIELDS);
        assert_eq!(keys(&written["source"]), SOURCE_FIELDS);
    }

    #[test]
    fn unknown_fields_and_values_survive_a_round_trip() {
        let line = r#"{"id":"SIG-20261122-0000000001","version":1,"timestamp":"2026-11-22T10:23:00Z","session_id":"s","project":"/p","type":"insight","status":"snoozed","confidence":2,"source":{"hook":"PreCompact","line":3,"uuid":"u","turn":null,"file":null,"col":9},"content":"c","context":"x","category":null,"tags":[],"related":[],"promoted_to":null,"meta":{"k":1},"future":{"a":[1,2]}}"#;
        let s: Signal = serde_json::from_str(line).unwrap();
        assert_eq!(s.kind, Kind::Other("insight".into()));
        assert_eq!(s.status, Status::Other("snoozed".into()));
        let back = serde_json::to_string(&s).unwrap();
        let a: Value = serde_json::from_str(line).unwrap();
        let b: Value = serde_json::from_str(&back).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn missing_optional_fields_are_filled() {
        let s: Signal =
            serde_json::from_str(r#"{"id":"SIG-1","type":"failure","source":"hook"}"#).unwrap();
        assert_eq!(s.status, Status::Captured);
        assert_eq!(s.confidence, 1);
        assert_eq!(s.source.hook.as_deref(), Some("hook"));
        assert!(s.tags.is_empty());
    }

    #[test]
    fn v2_lines_convert_deterministically() {
        let raw = br#"{"ts":"2026-02-11T10:23:00Z","sid":"abc","type":"correction","context":"No, use pnpm","turn":4,"x":1}"#;
        let map: Map<String, Value> = serde_json::from_slice(raw).unwrap();
        let a = Signal::from_v2(map.clone(), raw).unwrap();
        let b = Signal::from_v2(map, raw).unwrap();
        assert_eq!(a.id, b.id);
        assert!(a.id.starts_with("SIG-20260211-v2"), "{}", a.id);
        assert_eq!(a.session_id.as_deref(), Some("abc"));
        assert_eq!(a.source.turn, Some(4));
        assert_eq!(a.content, "No, use pnpm");
        assert_eq!(a.extra.get("x"), Some(&Value::from(1)));
    }

    #[test]
    fn ids_increase_past_the_last_one() {
        let now = parse_time("2026-11-22T10:23:00Z").unwrap();
        let first = make_id(now, None);
        assert_eq!(first, format!("SIG-20261122-{:010x}", 37_380_000_000u64));
        let second = make_id(now, Some(&first));
        assert!(second > first);
        let other_day = make_id(now, Some("SIG-20261121-ffffffffff"));
        assert_eq!(other_day, first);
    }

    #[test]
    fn sightings_raise_confidence_but_keep_verified() {
        let mut s = Signal::new(Kind::Correction, "x");
        s.add_sightings(1);
        assert_eq!((s.seen(), s.confidence), (2, 2));
        s.add_sightings(1);
        assert_eq!((s.seen(), s.confidence), (3, 3));
        let mut v = Signal::new(Kind::Correction, "x");
        v.confidence = 4;
        v.add_sightings(5);
        assert_eq!(v.confidence, 4);
    }

    #[test]
    fn paraphrases_of_one_instruction_are_the_same_instruction() {
        for (a, b) in [
            (
                "Please do not commit until I say so",
                "do not comit untill I said so",
            ),
            (
                "Please do not commit until I say so",
                "Do not commit until I said so please",
            ),
            (
                "always run the tests before pushing",
                "always run tests before you push",
            ),
            (
                "don't create v2 files, update in place",
                "dont create v2 v3 files; update in place",
            ),
            ("Use pnpm, not npm!", "use PNPM not npm"),
        ] {
            assert!(same_instruction(a, b), "{a} | {b}");
            assert!(same_instruction(b, a), "{b} | {a}");
        }
    }

    #[test]
    fn different_instructions_are_not_paraphrases() {
        for (a, b) in [
            // Swapped, negated, one content word changed.
            ("use pnpm not npm", "use npm not pnpm"),
            ("do commit the lockfile", "do not commit the lockfile"),
            ("put it in lib.rs please", "put it in main.rs please"),
            ("run the tests with cargo", "run the linter with cargo"),
            ("no, use the staging database", "no, use the production database"),
            // Too short to tell, and a long message that only repeats a rule among other things.
            ("Please stop", "Please stop!!"),
            (
                "do not commit until I say so",
                "do not commit until I say so, and the index URL has to change so the calls work again",
            ),
            ("", ""),
        ] {
            let same = same_instruction(a, b);
            if a == "Please stop" {
                // Equal once normalized: that is the exact dedup, not a paraphrase.
                assert!(same, "{a} | {b}");
                continue;
            }
            assert!(!same, "{a} | {b}");
        }
    }

    #[test]
    fn a_failure_is_the_same_on_another_file_line_or_run() {
        let key = |c: &str| dedup_key(&Kind::Failure, Some("/p"), c);
        assert_eq!(
            key("Bash failed: src/a.ts(3,7): error TS2322: Type 'string' is not assignable"),
            key("Bash failed: src/b.ts(19,2): error TS2322: Type 'string' is not assignable")
        );
        assert_eq!(
            key("Bash failed: Command timed out after 2m 0.0s"),
            key("Bash failed: Command timed out after 15s")
        );
        assert_ne!(
            key("Bash failed: ModuleNotFoundError: No module named 'yaml'"),
            key("Bash failed: ModuleNotFoundError: No module named 'httpx'")
        );
        // A path is what the error is about: another one is another failure.
        assert_ne!(
            key("Bash failed: ls: cannot access '/tmp/*.xml': No such file or directory"),
            key("Bash failed: ls: cannot access '/home/me/rules/': No such file or directory")
        );
        assert_eq!(
            key("Bash failed: cd: /home/me/app/backend: No such file or directory"),
            key("Bash failed: cd: backend: No such file or directory")
        );
        assert_eq!(
            key(r"Bash failed: cannot open C:\Users\me\app\.env: Permission denied"),
            key("Bash failed: cannot open /srv/app/.env: Permission denied")
        );
        assert_ne!(
            key("Bash failed: fatal: not a git repository"),
            key("Read failed: fatal: not a git repository")
        );
        // Other kinds keep their numbers: "use port 8080" is not "use port 3000".
        assert_ne!(
            dedup_key(&Kind::Correction, Some("/p"), "use port 8080"),
            dedup_key(&Kind::Correction, Some("/p"), "use port 3000")
        );
    }

    #[test]
    fn normalization_ignores_case_and_punctuation() {
        assert_eq!(normalize("No, use PNPM!"), normalize("no   use pnpm"));
        assert_eq!(
            dedup_key(&Kind::Correction, Some("/p"), "Use pnpm."),
            dedup_key(&Kind::Correction, Some("/p"), "use pnpm")
        );
        assert_ne!(
            dedup_key(&Kind::Correction, Some("/p"), "use pnpm"),
            dedup_key(&Kind::Convention, Some("/p"), "use pnpm")
        );
    }

    #[test]
    fn whose_words_a_signal_holds_is_read_from_its_source_or_its_kind() {
        let parse = |line: &str| serde_json::from_str::<Signal>(line).unwrap();
        let old = parse(r#"{"id":"SIG-1","type":"correction","source":{"hook":"PreCompact"}}"#);
        assert!(old.is_users_words());
        assert_eq!(
            parse(r#"{"id":"SIG-1","type":"failure"}"#).origin(),
            Origin::Tool
        );
        assert_eq!(
            parse(r#"{"id":"SIG-1","type":"gotcha"}"#).origin(),
            Origin::Assistant
        );
        let tool = parse(r#"{"id":"SIG-1","type":"correction","source":{"origin":"tool"}}"#);
        assert_eq!(tool.origin(), Origin::Tool);
        let odd = parse(r#"{"id":"SIG-1","type":"correction","source":{"origin":"web"}}"#);
        assert_eq!(odd.origin(), Origin::Tool, "unknown is not the user's");
        // Written back as read; absent stays absent.
        assert!(serde_json::to_string(&odd)
            .unwrap()
            .contains(r#""origin":"web""#));
        assert!(!serde_json::to_string(&old).unwrap().contains("origin"));
    }
}
