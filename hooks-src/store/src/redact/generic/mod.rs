//! The generic rules: secrets no named rule knows, found by what surrounds them or by their shape.
//!
//! - `prose-secret`: a value after a word that names a secret and a link, in the languages of
//!   the sessions reflect reads: "my token is X", "the api key is X", "API키는 X", "密码是X",
//!   "пароль: X", "Passwort ist X", "パスワードは X". The value must look generated (letters
//!   and digits mixed, or a symbol), so "the password is incorrect" stays. In CJK text, which
//!   names a secret and then says more of it before the value ("Token格式是…（以 `X` 開頭"),
//!   the value may come up to `CJK_GAP` CJK characters after the word, and must then look
//!   drawn at random (`generated`, mixed case and digits). With no link, or with `to` ("set
//!   the password to X", "password X", as an assistant says back a password it was given), the
//!   value must look drawn at random too: both cases and digits, or a symbol.
//! - `prose-password`: a password or PIN a person made up, after the same kind of word and link
//!   ("the password is swordfish", "**Senha:** admin7", "my PIN is 4821", "비밀번호는 dalki"):
//!   any one token, whatever its entropy, unless it is a word of prose (`required`, `stored`,
//!   `falsch`), code (`passwordHash`, `temp_password`, `os.environ[…]`), a variable reference
//!   (`${X}`) or a placeholder (`<password>`, `xxx`, `changeme`). After an English name that code
//!   uses for a field (`password:`, `pin =`), a lone word is a type or a variable: it stays.
//!   A PIN is 4 to 12 digits.
//!   After a word naming credentials ("credentials admin/X", "Credenziali utente/X",
//!   "凭据：admin:X"), the password of the user/password pair, when it looks generated (a
//!   person's `admin123` next to a branch name like `feature/oauth2-login` cannot be told
//!   apart); the user name stays.
//! - `license-key`: a licence key after a word naming one ("license key: …", "product key …",
//!   "ライセンスキーは …"): a grouped key (4 or more groups of 4–5 letters and digits joined by
//!   `-`), or 8 bytes and more of letters and digits. After `license`, `licence` or `serial`
//!   alone (`license: MIT`), a grouped key only.
//! - `key-shaped-token`: a lowercase prefix and `_` or `-` before a long run of random base62
//!   (`abc_Xy7…`): the shape most services' keys share. Random means mixed case and digits,
//!   classes switching as often as chance makes them, and high entropy, so camelCase names,
//!   hex hashes, UUIDs and base64 blobs stay; ids with a known prefix (`toolu_`, `tooluse_`,
//!   `msg_`, `req_`) stay too.
//! - `discord-bot-token`: `<base64 of a numeric id>.<6>.<27+>`, Discord's bot token.
//! - `zhipu-api-key`: `<32 hex>.<16 base62>`, Zhipu's and Z.ai's API key, which holds no literal
//!   for the data rules' keyword pre-check.
//! - `base64-secret`: a base64 blob that looks drawn at random, shortly after a word naming a
//!   secret or just before one (a Bitwarden session key the assistant quoted back to scrub it
//!   from history, and searched for: `grep -r '…==' . && echo "session key still there"`).
//!
//! Speed: one literal search for the words of the three word rules (the `needles` module), one
//! pass over the bytes for the key shape and one for base64 blobs (the bytes before a blob are
//! searched for a word only when it looks random), one `memchr` for the dots of a Discord
//! token. No regex.
//! Text holding none of the words pays nothing for the word rules beyond that search.
//!
//! The word rules are [`prose`], the shape rules [`shaped`].

use std::ops::Range;

mod prose;
mod shaped;

pub(super) use prose::is_word;

/// Every secret of `text` the generic rules find, with its kind.
pub(super) fn find(text: &[u8]) -> Vec<(Range<usize>, &'static str)> {
    let mut found = prose::prose_secrets(text);
    found.extend(
        shaped::key_shaped(text)
            .into_iter()
            .map(|r| (r, "key-shaped-token")),
    );
    found.extend(
        shaped::discord_bot_tokens(text)
            .into_iter()
            .map(|r| (r, "discord-bot-token")),
    );
    found.extend(
        shaped::zhipu_keys(text)
            .into_iter()
            .map(|r| (r, "zhipu-api-key")),
    );
    found.extend(
        shaped::base64_secrets(text)
            .into_iter()
            .map(|r| (r, "base64-secret")),
    );
    found
}
