//! `table-password`: the cells of a Markdown table's password column. An assistant lists the
//! accounts a seeder or a setup created as a table (`| Role | Email | Password |`, then
//! `| Admin | admin@example.com | S3eded!Pass |`): no word stands next to the value, so no
//! other rule can tell it from an e-mail address or a role; the header can.
//!
//! A column is a password's when its header cell, its `*` and backquotes aside, is a word
//! naming one ([`HEADERS`], in the languages of the sessions reflect reads; not `Pass`, a test
//! table's column, nor `Pin`, a wiring table's). In each row below
//! the header (up to the first line that is not a row), that column's cell is redacted when it
//! holds one token (its backquotes and `*` aside) that is not a placeholder (`-`, `n/a`,
//! `<set it>`, `${PASSWORD}`) or a word a table says instead of one ([`NOT_VALUES`]).
//!
//! Speed: a text with no `|` pays one `memchr`; only a line that starts with `|` is split.

use std::ops::Range;

use super::value::{is_placeholder, PLACEHOLDER_PREFIX};

/// Header cells that name a password column (compared lowercase, `*` and backquotes aside).
const HEADERS: &[&str] = &[
    "password",
    "passwords",
    "passwd",
    "passphrase",
    "initial password",
    "default password",
    "passwort",
    "kennwort",
    "contraseña",
    "contrasena",
    "senha",
    "mot de passe",
    "пароль",
    "密码",
    "密碼",
    "비밀번호",
    "パスワード",
    "mật khẩu",
];

/// What a password cell says when it holds none.
const NOT_VALUES: &[&str] = &[
    "n/a",
    "na",
    "same",
    "unset",
    "empty",
    "optional",
    "required",
    "random",
    "generated",
    "prompted",
    "ask",
    "—",
    "–",
];

/// The password cells of every Markdown table in `text`.
pub(super) fn find(text: &[u8]) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    if memchr::memchr(b'|', text).is_none() {
        return found;
    }
    let Ok(text) = std::str::from_utf8(text) else {
        return found;
    };
    // The password columns of the table being read, by index among its cells.
    let mut columns: Vec<usize> = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let body = line.trim_end_matches(['\n', '\r']);
        if flattened(text, body, start, &mut found) {
            columns.clear();
            continue;
        }
        if !body.trim_start().starts_with('|') {
            columns.clear();
            continue;
        }
        let cells = cells(body, start);
        if columns.is_empty() {
            columns = (0..cells.len())
                .filter(|&k| names_a_password(&text[cells[k].clone()]))
                .collect();
            continue;
        }
        for &k in &columns {
            if let Some(value) = cells.get(k).and_then(|c| value(text, c.clone())) {
                found.push(value);
            }
        }
    }
    found
}

/// A table written on one line, its rows joined by blanks (`| Role | Password | |---|---| |
/// Admin | S3cr3t! |`, as a one-line quote or a learning holds it): the password cells of the
/// rows after its separator, added to `found`. Says whether `line` (at byte `start`) held such
/// a table's header and separator.
fn flattened(text: &str, line: &str, start: usize, found: &mut Vec<Range<usize>>) -> bool {
    if !line.contains("|-") && !line.contains("| -") && !line.contains("|:-") {
        return false;
    }
    // Every cell of the line, the text before its first `|` and after its last included.
    let cells = pieces(line, start);
    let dashes = |k: usize| {
        let t = &text[cells[k].clone()];
        !t.is_empty() && t.contains('-') && t.chars().all(|c| matches!(c, '-' | ':'))
    };
    let blank = |k: usize| cells.get(k).is_none_or(|c| c.is_empty());
    let mut any = false;
    let mut k = 0;
    while k < cells.len() {
        if !dashes(k) {
            k += 1;
            continue;
        }
        let n = (k..cells.len()).take_while(|&j| dashes(j)).count();
        // The header: the `n` cells before the blank one between it and the separator.
        let header = (k > n && blank(k - 1)).then(|| k - 1 - n..k - 1);
        let columns: Vec<usize> = header.map_or(Vec::new(), |h| {
            (0..n)
                .filter(|&c| names_a_password(&text[cells[h.start + c].clone()]))
                .collect()
        });
        any |= !columns.is_empty();
        let mut row = k + n + 1;
        while !columns.is_empty() && row + n <= cells.len() {
            for &c in &columns {
                if let Some(v) = value(text, cells[row + c].clone()) {
                    found.push(v);
                }
            }
            // Words after the table's last row end it.
            if !blank(row + n) {
                break;
            }
            row += n + 1;
        }
        k += n;
    }
    any
}

/// The byte ranges of a row's cells in the text (`row` starts at byte `start`), each trimmed:
/// its pieces between `|`s, a last one after its last `|` only when it holds something.
fn cells(row: &str, start: usize) -> Vec<Range<usize>> {
    let mut cells = pieces(row, start);
    cells.remove(0);
    if cells.last().is_some_and(Range::is_empty) {
        cells.pop();
    }
    cells
}

/// The byte ranges of the pieces of `line` (at byte `start` of the text) that its `|`s part,
/// each trimmed: the one before its first `|` and the one after its last included.
fn pieces(line: &str, start: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut from = 0;
    for (i, c) in line.char_indices() {
        if c == '|' {
            out.push(trimmed(line, from..i, start));
            from = i + 1;
        }
    }
    out.push(trimmed(line, from..line.len(), start));
    out
}

/// `range` of `s` without its blanks, shifted by `offset`.
fn trimmed(s: &str, range: Range<usize>, offset: usize) -> Range<usize> {
    let cell = &s[range.clone()];
    let head = cell.len() - cell.trim_start().len();
    let len = cell.trim().len();
    offset + range.start + head..offset + range.start + head + len
}

/// Whether a header cell names a password.
fn names_a_password(cell: &str) -> bool {
    let bare = cell.trim_matches(|c: char| c == '*' || c == '`' || c.is_whitespace());
    HEADERS.contains(&bare.to_lowercase().as_str())
}

/// The value a password cell holds, without its backquotes and `*`: one token that is no
/// placeholder, no separator row's dashes and no word a table says instead.
fn value(text: &str, cell: Range<usize>) -> Option<Range<usize>> {
    let raw = &text[cell.clone()];
    let head = raw.len() - raw.trim_start_matches(['`', '*']).len();
    let tail = raw.len() - raw.trim_end_matches(['`', '*']).len();
    let span = cell.start + head..cell.end.saturating_sub(tail).max(cell.start + head);
    let v = &text[span.clone()];
    let dashes = v.chars().all(|c| matches!(c, '-' | ':' | ' '));
    let not_value = NOT_VALUES.contains(&v.to_lowercase().as_str());
    let token = !v.is_empty() && !v.contains(char::is_whitespace);
    (token && !dashes && !not_value && !is_placeholder(v) && !v.starts_with(PLACEHOLDER_PREFIX))
        .then_some(span)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str) -> Vec<&str> {
        find(text.as_bytes())
            .into_iter()
            .map(|r| &text[r])
            .collect()
    }

    #[test]
    fn a_password_columns_cells_are_found_and_nothing_else() {
        let table = "From the seeder:\n| Role | Email | Password |\n|------|-------|----------|\n| **Admin** | `admin@example.com` | `Adm1n@Seed2031!` |\n| Viewer | viewer@example.com | swordfish |\n\nLog in at /login.";
        assert_eq!(values(table), ["Adm1n@Seed2031!", "swordfish"]);
        // Indented, another language, no closing pipe.
        let table = "  | Usuario | Contraseña\n  |---|---\n  | admin | Cl4ve#Segura";
        assert_eq!(values(table), ["Cl4ve#Segura"]);
        // Placeholders and words a table says instead of a value stay; so do other columns.
        let table = "| User | Password | Notes |\n|---|---|---|\n| a | `<set on first login>` | x |\n| b | n/a | y |\n| c | ${DB_PASSWORD} | z |\n| d | - | w |\n| e | same as above | v |";
        assert!(values(table).is_empty(), "{:?}", values(table));
        // A table with no password column, and a table whose column only mentions one.
        for text in [
            "| Token | Meaning |\n|---|---|\n| IDENT | a name |",
            "| Field | Type |\n|---|---|\n| password | string |",
            "| Password policy | Value |\n|---|---|\n| min length | 12 |",
            "| Test | Pass | Fail |\n|---|---|---|\n| parser | PASS | - |",
            "| Pin | Function |\n|---|---|\n| GPIO4 | LED |",
        ] {
            assert!(values(text).is_empty(), "{text}");
        }
        // On one line, as a quote or a learning holds it.
        let text = "Deploy with Seeded: | Role | Email | Password | |---|---|---| | Admin | admin@example.com | `Adm1n@Seed2031!` | | Viewer | v@example.com | swordfish | ; and more";
        assert_eq!(values(text), ["Adm1n@Seed2031!", "swordfish"]);
        // A table ends at the first line that is not a row.
        let text = "| Password |\n|---|\n| first1! |\nplain text\n| second2! |";
        assert_eq!(values(text), ["first1!"]);
    }
}
