//! What a value found after a secret's name is: a placeholder, code, a path or a version (left
//! alone), or something that reads as a credential.

use super::names::is_secret_name;

/// How every placeholder starts; a value that already starts with it is never redacted again.
pub const PLACEHOLDER_PREFIX: &str = "[REDACTED:";

/// Unquoted values shorter than this are left (`withCredentials=!0`, `token: 5`): too short to be
/// a credential worth hiding, and too often code.
pub(super) const MIN_BARE_SECRET: usize = 4;

/// Placeholders, empty values, template syntax and values that are never secrets (types,
/// versions, modes): nothing to hide.
pub(super) fn is_placeholder(value: &str) -> bool {
    let v = value.trim();
    if let Some(default) = expansion_default(v) {
        // `${DB_PASSWORD:-hunter2}`: the default is a value like any other, unless it is made
        // of other variables (`backup_${DB_PASS}`).
        return is_placeholder(default) || default.contains("${");
    }
    if v.is_empty()
        || v.starts_with(['$', '<', '{', '[', '*'])
        || (v.starts_with('%') && !starts_with_percent_escape(v))
        || v.starts_with("REDACTED")
        || v.chars()
            .all(|c| matches!(c, '*' | 'x' | 'X' | '.' | '…' | '•' | '-' | '_'))
        || is_version(v)
    {
        return true;
    }
    let lower = v.to_ascii_lowercase();
    NOT_SECRETS.contains(&lower.as_str()) || lower.contains("your_") || lower.contains("your-")
}

/// The default of a shell expansion with one (`${NAME:-default}`, `-`, `:=`, `=`): what the
/// value is when the variable is unset, so a secret when a secret is written there.
fn expansion_default(v: &str) -> Option<&str> {
    let inner = v.strip_prefix("${")?.strip_suffix('}')?;
    let name = inner
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_');
    let rest = &inner[name.count()..];
    [":-", ":=", "-", "="]
        .iter()
        .find_map(|op| rest.strip_prefix(op))
}

/// Whether `v` starts with a percent-escape (`%40pass`: a value, encoded) rather than a
/// Windows variable (`%DB_PASS%`) or a format (`%s`).
fn starts_with_percent_escape(v: &str) -> bool {
    let b = v.as_bytes();
    let escape = b.len() >= 3 && b[1].is_ascii_hexdigit() && b[2].is_ascii_hexdigit();
    let variable = b.len() >= 3
        && b.ends_with(b"%")
        && b[1..b.len() - 1]
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || c == b'_');
    escape && !variable
}

/// Values an assignment to a secret-named key takes that are not secrets: placeholders, type
/// names (`token: string;`), fetch credential modes, workflow permissions, code keywords.
const NOT_SECRETS: &[&str] = &[
    "null",
    "none",
    "nil",
    "true",
    "false",
    "undefined",
    "redacted",
    "hidden",
    "placeholder",
    "example",
    "password",
    "passwd",
    "pass",
    "secret",
    "token",
    "changeme",
    "string",
    "number",
    "boolean",
    "bool",
    "str",
    "int",
    "any",
    "unknown",
    "object",
    "bytes",
    "float",
    "void",
    "include",
    "omit",
    "same-origin",
    "read",
    "write",
    "required",
    "optional",
    "await",
    "new",
    "this",
    "self",
    "function",
    "async",
    "lambda",
    "return",
    "typeof",
    "yield",
];

/// `9.0.2`, `^1.4`, `~2.0.0-beta.1`, `>=3.10`: a dependency version.
pub(super) fn is_version(v: &str) -> bool {
    let v = v.trim_start_matches(['^', '~', '>', '<', '=', 'v']);
    let mut parts = v.split('.');
    parts.clone().count() >= 2
        && parts
            .next()
            .is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        && parts
            .next()
            .is_some_and(|p| p.starts_with(|c: char| c.is_ascii_digit()))
}

/// An unquoted right-hand side that is code, not a value: a call, an index, a generic, a
/// negation, a dotted path (`os.environ["X"]`, `get_token()`, `self.password`), or a variable
/// whose own name says it holds the secret (`token = accessToken`). A name that mixes letters and
/// digits (`blue42password`) is what a person types as a password, not what code names one.
pub(super) fn is_code(value: &str) -> bool {
    if value.contains(['(', '[', '<']) || value.starts_with('!') {
        return true;
    }
    let ident = |s: &str| {
        s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    // A generated part (`S3cr3tV4lue.md`, a secret in a file name) is no identifier of code.
    let dotted = value.contains('.')
        && value
            .split('.')
            .all(|part| ident(part) && !credential_like(part));
    dotted || (ident(value) && is_secret_name(value) && !credential_like(value))
}

/// At least 8 characters mixing letters and digits: what a generated secret looks like, and a
/// prose word does not.
pub(super) fn credential_like(value: &str) -> bool {
    value.len() >= 8
        && value.chars().any(|c| c.is_ascii_digit())
        && value.chars().any(|c| c.is_ascii_alphabetic())
}

/// An OpenAI key body: mixed case and digits, or one unbroken run with digits. Keeps kebab-case
/// names that happen to start with `sk-` (`sk-learn-tutorial-part-2024`).
pub(super) fn random_looking(body: &str) -> bool {
    let digits = body.chars().filter(char::is_ascii_digit).count();
    let upper = body.chars().any(|c| c.is_ascii_uppercase());
    let lower = body.chars().any(|c| c.is_ascii_lowercase());
    digits >= 2 && (upper || lower) && (upper || !body.contains('-'))
}

/// A file path as a value (`SSH_KEY=~/.ssh/id_ed25519`): a pointer to a secret, not one.
pub(super) fn is_path(value: &str) -> bool {
    value.starts_with('/')
        || value.starts_with("~/")
        || value.starts_with("./")
        || value.starts_with("../")
}
