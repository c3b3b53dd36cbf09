//! Which names name a secret: a key or an environment variable (`DB_PASSWORD`, `API_TOKEN`).

/// What an `UPPER_SNAKE` name says about its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum EnvName {
    /// `DB_PASSWORD`, `GH_TOKEN`, `API_KEY`, `SECRET_KEY_BASE`: the value is a secret.
    Secret,
    /// `…_KEY` after a word that does not make it one (`STRIPE_KEY`, but also `STORAGE_KEY`):
    /// a secret only if the value looks generated.
    MaybeKey,
    /// Anything else (`BYPASS_CACHE`, `TOKEN_URL`, `PASSWORD_FILE`, `KEYBOARD`).
    Other,
}

/// Classify a name by its last `_`-separated part: what it ends with is what it holds, so
/// `TOKEN_STORAGE_KEY` and `PASSWORD_FILE` are not secrets while `GITHUB_TOKEN` is.
pub(super) fn env_name(name: &str) -> EnvName {
    const ENDINGS: &[&str] = &[
        "SECRET",
        "SECRETS",
        "TOKEN",
        "PASSWORD",
        "PASSWD",
        "PASSPHRASE",
        "APIKEY",
    ];
    const WHOLE: &[&str] = &["PASS", "PWD", "SSHPASS", "CREDENTIAL", "CREDENTIALS"];
    const KEY_OF: &[&str] = &[
        "API",
        "SECRET",
        "PRIVATE",
        "ACCESS",
        "MASTER",
        "SIGNING",
        "ENCRYPTION",
        "AUTH",
        "CLIENT",
        "LICENSE",
        "SERVICE",
        "WEBHOOK",
        "JWT",
        "HMAC",
        "ADMIN",
        "DEPLOY",
    ];
    const ANYWHERE: &[&str] = &[
        "SECRET_KEY",
        "PRIVATE_KEY",
        "API_KEY",
        "ACCESS_KEY",
        "MASTER_KEY",
    ];
    let mut parts = name.rsplit('_').filter(|p| !p.is_empty());
    let last = parts.next().unwrap_or("");
    if ENDINGS.iter().any(|w| last.ends_with(w)) || WHOLE.contains(&last) {
        return EnvName::Secret;
    }
    if ANYWHERE.iter().any(|w| name.contains(w)) {
        return EnvName::Secret;
    }
    if last == "KEY" {
        return match parts.next() {
            Some(before) if KEY_OF.contains(&before) => EnvName::Secret,
            _ => EnvName::MaybeKey,
        };
    }
    EnvName::Other
}

/// A key naming a secret in any case or style (`password`, `dbPassword`, `api-key`,
/// `SecretAccessKey`, `auth_token`): it ends with one of [`SECRET_WORDS`].
pub(crate) fn is_secret_name(key: &str) -> bool {
    let lower = key.to_ascii_lowercase();
    let lower = lower.trim_matches(|c: char| !c.is_ascii_alphanumeric());
    SECRET_WORDS.iter().any(|w| lower.ends_with(w)) || env_name(key) == EnvName::Secret
}

/// Key endings that name a secret in an assignment (lowercase).
pub(super) const SECRET_WORDS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "api_key",
    "api-key",
    "apikey",
    "access_key",
    "access-key",
    "accesskey",
    "secret_key",
    "secret-key",
    "secretkey",
    "private_key",
    "private-key",
    "privatekey",
    "auth_key",
    "authkey",
    "credential",
    "credentials",
];
