//! The leak table: every kind of secret (several shapes for some, and the shapes that leaked in
//! issue 15: command-line flags, URL passwords with `#` or `/`, a PHP `define`), each written
//! plain, after an `_`, after a literal `\n`, after a `%xx`, URL-encoded and inside escaped JSON
//! (once and twice), given to every place a text enters reflect: a failed tool call's payload,
//! a transcript's tool error, correction, remember request and edited file (its path reaches
//! the cursor and the session summary), `memory-store append`, `promote` into a CLAUDE.md, and
//! `export` of a store written before redaction. No 8 bytes of any secret, nor of its percent-
//! or JSON-encoded form, may come out anywhere.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;
use std::fs;

use serde_json::{json, Value};

use crate::hooks::{assert_silent_success, run_hook, signals};
use crate::util::{stdout, transcript_entry, Env};

/// What an encoding puts a separator right before.
#[derive(Clone, Copy, PartialEq)]
enum At {
    /// The secret: a fixed-prefix token stands alone.
    Token,
    /// The text: the secret needs its context (a key, a header, a URL).
    Text,
    /// A command: a flag carries the secret, so the `_` ends a variable naming the command.
    Command,
}
use At::{Command, Text, Token};

/// One secret in one encoding of its context.
struct Row {
    shape: &'static str,
    encoding: &'static str,
    secret: String,
    /// How many leading bytes of `secret` are a fixed token prefix (`ghp_`), not secret.
    prefix: usize,
    text: String,
}

/// `(shape, token prefix, secret, what a separator goes before, the context)`. Prefix and secret
/// are apart so that secret scanners do not flag this file.
type Shape = (
    &'static str,
    &'static str,
    &'static str,
    At,
    fn(&str) -> String,
);

const SHAPES: &[Shape] = &[
    (
        "anthropic-key",
        "sk-ant-",
        "api03-Zx9Cv8Bn7Mq6Lw5Ke4Jr3Hs2Gd1Fa0PoIuYt",
        Token,
        |s| format!("claude --key {s}"),
    ),
    (
        "openai-key proj",
        "sk-",
        "proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
        Token,
        |s| format!("OPENAI {s} used"),
    ),
    (
        "openai-key",
        "sk-",
        "9fX2aB7cD4eF1gH6iJ3kL8mN5oP0qR2sT7uV4wX1yZ6aB3c",
        Token,
        |s| format!("key {s}"),
    ),
    (
        "github-token ghp",
        "ghp_",
        "R4nd0mT0k3nV4lu3F0rT3st1ngXyZ123456",
        Token,
        |s| format!("git remote set-url origin https://{s}@github.com/o/r.git"),
    ),
    (
        "github-token gho",
        "gho_",
        "Q1w2E3r4T5y6U7i8O9p0AsDfGhJkLzXcVb12",
        Token,
        |s| format!("token {s}"),
    ),
    (
        "github-token pat",
        "github_pat_",
        "11ABCDEFG0918273645_qazwsxedcrfvtgbyhnujmikolpQAZWSXEDCRFVTGBYHNUJM",
        Token,
        |s| format!("GH {s}"),
    ),
    (
        "gitlab-token",
        "glpat",
        "-Qw3rTy7UiOp2AsDf9GhJ",
        Token,
        |s| format!("GITLAB {s}"),
    ),
    (
        "slack-token xoxb",
        "xoxb",
        "-730192846510-8273645190281-Zz9Yy8Xx7Ww6",
        Token,
        |s| format!("slack {s}"),
    ),
    (
        "slack-token xoxp",
        "xoxp",
        "-491827365012-6617283940571-Aa9Bb8Cc7Dd6",
        Token,
        |s| format!("slack {s}"),
    ),
    (
        "stripe-key sk",
        "sk_live_",
        "51H8abcDEF123ghiJKL456mno",
        Token,
        |s| format!("stripe {s}"),
    ),
    (
        "stripe-key rk",
        "rk_test_",
        "61J9bcdEFG234hijKLM567nop",
        Token,
        |s| format!("stripe {s}"),
    ),
    (
        "google-api-key",
        "AIza",
        "SyB-5172839406zyxwvutsrqponmlkjihgf",
        Token,
        |s| format!("maps?key={s}"),
    ),
    (
        "npm-token",
        "npm_",
        "Np9Mq8Lr7Ks6Jt5Iu4Hv3Gw2Fx1Ey0DzCaBb",
        Token,
        |s| format!("//registry.npmjs.org/:_authToken={s}"),
    ),
    (
        "pypi-token",
        "pypi-AgEI",
        "cHlwaS5vcmcCJDk5ZjY5ZDA2LTk0NGEtNDU5ZS1hYTk3LWE4NmNjYmVmN2E4ZQ",
        Token,
        |s| format!("twine upload -p {s}"),
    ),
    (
        "aws-access-key AKIA",
        "AKIA",
        "Z7XQ3MDE4RTY5UPA",
        Token,
        |s| format!("aws_access_key_id={s}"),
    ),
    (
        "aws-access-key ASIA",
        "ASIA",
        "Q2WE3RT4YU5IO6PA",
        Token,
        |s| format!("key id {s}"),
    ),
    (
        "jwt",
        "eyJhbGciOiJIUzI1NiJ9",
        ".eyJzdWIiOiJyZWZsZWN0LXRlc3QifQ.c2lnbmF0dXJlLXJlZmxlY3QtdGVzdA",
        Token,
        |s| format!("cookie session={s}"),
    ),
    ("slack-webhook", "", "q1W2e3R4t5Y6u7I8o9P0aSdF", Text, |s| {
        format!("POST https://hooks.slack.com/services/T024BE7LD/B01ABCDEF12/{s}")
    }),
    (
        "private-key",
        "",
        "MIIEpAIBAAKCAQEAreflectTestBodyLine4k7Q2x9Z",
        Text,
        |s| format!("-----BEGIN RSA PRIVATE KEY-----\n{s}\n-----END RSA PRIVATE KEY-----"),
    ),
    ("url-password", "", "Pg5ecr3tPw9", Text, |s| {
        format!("psql postgres://app:{s}@db.internal:5432/app")
    }),
    (
        "aws-secret-key",
        "",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8RtT3vX1",
        Text,
        |s| format!("aws_secret_access_key = {s}"),
    ),
    ("bearer-token", "", "bRr3a7T0k3nZ9x8c7v6", Text, |s| {
        format!("curl -H 'Authorization: Bearer {s}' https://api.example.com")
    }),
    ("basic-auth", "", "cmVmbGVjdDpzM2NyM3Q=", Text, |s| {
        format!("Authorization: Basic {s}")
    }),
    ("env-secret", "", "EnvS3cr3tV4lue77", Text, |s| {
        format!("DATABASE_PASSWORD={s}")
    }),
    ("secret-assignment", "", "As5ignS3cr3t88", Text, |s| {
        format!("{{\"api_key\": \"{s}\"}}")
    }),
    ("curl -u", "", "Cu7lPa55wQ", Command, |s| {
        format!("curl -u admin:{s} https://api.example.com/v1")
    }),
    ("mysql -p", "", "My5qlPa55wR", Command, |s| {
        format!("docker exec db mysql -uroot -p{s} app")
    }),
    ("mysql --password", "", "My5qlL0ngPw", Command, |s| {
        format!("mysql -u root --password {s} -h db app")
    }),
    ("mysql --password=", "", "Eq.Pa55w0rd.X", Command, |s| {
        format!("mysqldump --user=root --password={s} app")
    }),
    ("docker login -p", "", "D0ckerPa5sw", Command, |s| {
        format!("docker login -u bot -p {s} registry.example.com")
    }),
    (
        "docker login --password",
        "",
        "D0ckerL0ngPw",
        Command,
        |s| format!("docker login --username bot --password {s} ghcr.io"),
    ),
    // Passwords handed to a program on stdin: the command stays, the password goes.
    ("echo | sudo -S", "", "31415926", Command, |s| {
        format!("echo '{s}' | sudo -S pacman -S --needed --noconfirm mesa")
    }),
    ("printf | sudo -S", "", "Pr1ntfPa55", Command, |s| {
        format!("printf '{s}\\n' | sudo -k -S apt-get install -y jq")
    }),
    ("sudo -S <<<", "", "H3reStr1ng!", Command, |s| {
        format!("sudo -S -p '' tee -a /etc/hosts <<< '{s}'")
    }),
    ("echo | chpasswd", "", "Chp4sswdX9", Command, |s| {
        format!("echo 'root:{s}' | chpasswd")
    }),
    (
        "sshpass -p in a Read view",
        "",
        "Ssh9Pa55wV",
        Command,
        |s| format!("    63→sshpass -p '{s}' rsync -avz ./ prod:/srv"),
    ),
    ("SSHPASS=", "", "Ssh9EnvPa55", Text, |s| {
        format!("SSHPASS={s} sshpass -e ssh deploy@prod")
    }),
    ("url-password #", "", "Ha5h#Pa55w0rd", Text, |s| {
        format!("redis://default:{s}@cache.internal:6379")
    }),
    ("url-password /", "", "Sl4sh/Pa5sw0rd", Text, |s| {
        format!("mongodb://app:{s}@mongo.internal/app")
    }),
    // The shape of a key the corpus holds (a shell-escaped `!`, `;`, `)`, `@`, `^`), made up.
    (
        "php define",
        "",
        "sk_h1.Qv\\!Rt;XyZabc_)4@mno7p2q^rs",
        Text,
        |s| format!("define( 'WP_FS__demo_SECRET_KEY', '{s}' );"),
    ),
    // The kinds issue 22 found never redacted (made up, of the shape each service issues).
    (
        "slack app token",
        "xapp-",
        "1-A0123BCDEFG-1234567890123-0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b",
        Token,
        |s| format!("SLACK_APP {s}"),
    ),
    (
        "huggingface",
        "hf_",
        "QwErTyUiOpAsDfGhJkLzXcVbNmQwErTyUi",
        Token,
        |s| format!("login with {s} now"),
    ),
    (
        "context7",
        "ctx7sk-",
        "4f1c2d3e-5a6b-7c8d-9e0f-a1b2c3d4e5f6",
        Token,
        |s| format!("--api-key {s}"),
    ),
    (
        "sendgrid",
        "SG.",
        "aB3dE6gH9jK2mN5pQ8sT1v.wX4yZ7bC0eF2hJ5kL8nP1rS4uV7xA0cD3fG6iJ9lM2o",
        Token,
        |s| format!("sendgrid {s}"),
    ),
    (
        "azure AccountKey",
        "",
        "Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2FsZG8xMjM0NTY3OA==",
        Text,
        |s| {
            format!("DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={s};EndpointSuffix=core.windows.net")
        },
    ),
    (
        "azure SAS sig",
        "",
        "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
        Text,
        |s| {
            format!("GET https://acme.blob.core.windows.net/c/b.txt?sv=2022-11-02&sr=b&sig={s} 403")
        },
    ),
    (
        "twilio",
        "SK",
        "0123456789abcdef0123456789abcdef",
        Token,
        |s| format!("twilio api key {s} used"),
    ),
    (
        "authorization token",
        "",
        "7a9f3c2e1b0d4f6a8c5e3b1d9f7a5c3e1b0d2f4a",
        Text,
        |s| format!("curl -H \"Authorization: token {s}\" https://api.example.com"),
    ),
    ("my token is", "", "Tk9xQ2mV8pL4rZ7wN3bY6cF1", Text, |s| {
        format!("my token is {s} so use it")
    }),
    (
        "the api key is",
        "",
        "Hq2Lm9Xc4Vb8Nz3Kp6Rt1Ws7Jd",
        Text,
        |s| format!("the api key is {s}."),
    ),
    ("API키는", "", "Q7mX2pL9vK4rN8tZ3wB6cY1d", Text, |s| {
        format!("API키는 {s} 입니다")
    }),
    ("password is", "", "Tr0ub4dor&3x", Text, |s| {
        format!("the password is {s}, don't share")
    }),
    ("prose password", "", "lanmao77", Text, |s| {
        format!("- **Senha:** {s}")
    }),
    ("table password", "", "Se3d3r!Adm1n", Text, |s| {
        format!("Seeded:\n| Role | Email | Password |\n|---|---|---|\n| Admin | admin@example.com | `{s}` |")
    }),
    ("licence key", "", "QX7TB-99ABK-KP2MW-4WZRN", Text, |s| {
        format!("license key: {s}")
    }),
    // A Bitwarden session key: a base64 blob, named only by a comment above its command.
    (
        "base64 session key",
        "",
        "4hv1xOSGKaRKZ0fHS3fk6S0i3xjlevPgxFkL+UcgtzWOwl5prQH+Hu2Z9u48Rw==",
        Text,
        |s| {
            format!("# scrub the session token from history\ngit filter-repo --replace-text <(echo '{s}')")
        },
    ),
    // The same kind of key searched for, named only by what the command says after it.
    (
        "base64 key searched for",
        "",
        "p2Vd9Rk+Ws7LmQ0tZb3xN8cYh4Jf6Ga1Eu5TnKo/Ir2Mq9Sw7Dv3Lb0Xz8Pk6Hn4Fy1==",
        Text,
        |s| format!("grep -r '{s}' . && echo \"session key still there\""),
    ),
    (
        "discord bot token",
        "MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.",
        "ZnCjm1XVW7vRze4b7Cq4se7kKWs",
        Token,
        |s| format!("bot.run('{s}')"),
    ),
    (
        "telegram bot token",
        "123456789:AA",
        "HdqTcvCH1vGWJxfSeofSAs0K5PALDsaw",
        Token,
        |s| format!("https://api.telegram.org/bot{s}/getMe"),
    ),
    (
        "wecom webhook",
        "",
        "3f9a1c2e-7b4d-4e8f-a0c6-5d2b9e1f7a3c",
        Text,
        |s| format!("curl 'https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key={s}' -d @msg.json"),
    ),
    (
        "labelled secret key",
        "",
        "xpQe6VXmj292ejRGqUhAjZegBg53R/4p9qt93iAL",
        Text,
        |s| format!("- **Access Key**: `AKIA…` - **Secret Key**: `{s}` - **Region**: `us-west-2`"),
    ),
    (
        "login link token",
        "",
        "vQ7mXk2LpR9sTw4ZyB1nC6dF8gHjK3aE5uN0oW",
        Text,
        |s| format!("https://app.example.com/portal/login/{s} still not working"),
    ),
    (
        "feishu webhook",
        "",
        "8e2d4b6a-1c3f-4a5e-9b7d-0f2e4c6a8b1d",
        Text,
        |s| format!("WEBHOOK=https://open.feishu.cn/open-apis/bot/v2/hook/{s}"),
    ),
    (
        "mailgun",
        "key-",
        "3ax6xnjp29jd6fds4gc373sgvjxteol0",
        Token,
        |s| format!("curl --user api:{s} https://api.mailgun.net"),
    ),
    (
        "shopify",
        "shpat_",
        "0a1b2c3d4e5f60718293a4b5c6d7e8f9",
        Token,
        |s| format!("X-Shopify-Access-Token: {s}"),
    ),
    (
        "digitalocean",
        "dop_v1_",
        "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9",
        Token,
        |s| format!("doctl auth init -t {s}"),
    ),
    (
        "vault",
        "hvs.",
        "CAESIJ0q1W2e3R4t5Y6u7I8o9P0aSdFgHjKl",
        Token,
        |s| format!("VAULT_TOKEN {s}"),
    ),
    (
        "groq",
        "gsk_",
        "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb3dEf6hIj9kLm2nOp5q",
        Token,
        |s| format!("client = Groq(api_key={s})"),
    ),
    (
        "xai",
        "xai-",
        "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb3dEf6hIj9kLm2n",
        Token,
        |s| format!("export KEY {s}"),
    ),
    (
        "age",
        "AGE-SECRET-KEY-1",
        "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LQPZRY9X8GF2TVDW0S3JN54KHCE",
        Token,
        |s| format!("# secret: {s}"),
    ),
    (
        "gcp private_key_id",
        "",
        "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567",
        Text,
        |s| format!("{{\"type\": \"service_account\", \"private_key_id\": \"{s}\"}}"),
    ),
    (
        "url password with a percent-escape",
        "",
        "%40Sx9pQ2wE7",
        Text,
        |s| format!("git clone https://deploy:{s}@git.example.com/r.git"),
    ),
];

fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// `text` as the inside of a JSON string.
fn json_escape(text: &str) -> String {
    let quoted = serde_json::to_string(text).unwrap();
    quoted[1..quoted.len() - 1].to_string()
}

/// `body` with its letters and digits moved on by `by` in their class: a secret of the same
/// shape, different for every row, so a leak names the row it came from. A lowercase hex body
/// (a UUID's dashes kept) stays hex.
fn rotate(body: &str, by: u8) -> String {
    let shift = |c: u8, first: u8, len: u8| char::from(first + (c - first + by) % len);
    let hex = body
        .bytes()
        .all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f' | b'-'));
    body.bytes()
        .map(|c| match c {
            b'0'..=b'9' if hex => char::from(b"0123456789abcdef"[usize::from(c - b'0' + by) % 16]),
            b'a'..=b'f' if hex => {
                char::from(b"0123456789abcdef"[usize::from(c - b'a' + 10 + by) % 16])
            }
            b'a'..=b'z' => shift(c, b'a', 26),
            b'A'..=b'Z' => shift(c, b'A', 26),
            b'0'..=b'9' => shift(c, b'0', 10),
            _ => char::from(c),
        })
        .collect()
}

/// Every shape in every encoding.
fn rows() -> Vec<Row> {
    let mut rows = Vec::new();
    for &(shape, prefix, body, at, context) in SHAPES {
        for (n, encoding) in ENCODINGS.iter().enumerate() {
            let secret = format!("{prefix}{}", rotate(body, n as u8 + 1));
            let text = encode(encoding, &context(&secret), &secret, at);
            rows.push(Row {
                shape,
                encoding,
                prefix: prefix.len(),
                secret,
                text,
            });
        }
    }
    rows
}

const ENCODINGS: &[&str] = &[
    "plain",
    "after _",
    "after \\n",
    "after %xx",
    "url-encoded",
    "escaped JSON",
    "escaped twice",
    "hexdump -C",
    "od -t x1z",
];

/// `text` (holding `secret`) in `encoding`.
fn encode(encoding: &str, text: &str, secret: &str, at: At) -> String {
    let bare = if at == Token { secret } else { text };
    let escaped = json_escape(text);
    match encoding {
        "plain" => text.to_string(),
        "after _" if at == Command => format!("ERR_CMD={bare}"),
        "after _" => format!("ERR_{bare}"),
        "after \\n" => format!("echo -e \"done\\n{bare}\""),
        "after %xx" => format!("GET /login?next=%2F{bare}"),
        "url-encoded" => format!("GET /cb?data={}", percent_encode(text)),
        "escaped JSON" => format!("error: {{\"cmd\":\"{escaped}\"}}"),
        "escaped twice" => format!(
            "{{\"error\":\"{}\"}}",
            json_escape(&format!("{{\"cmd\":\"{escaped}\"}}"))
        ),
        // A file pasted as a dump: the secret split over 16-byte lines, in hex and in ASCII.
        "hexdump -C" => format!(
            "$ hexdump -C .env\n{}",
            hexdump(&format!("# env\n{text}\n"))
        ),
        // The same in `od`'s hex bytes, its ASCII column at the end of the line between `>` and `<`.
        "od -t x1z" => format!("$ od -t x1z .env\n{}", od_x1z(&format!("# env\n{text}\n"))),
        _ => unreachable!("{encoding}"),
    }
}

/// `text` as `hexdump -C` prints it (no line repeats, so no `*`).
fn hexdump(text: &str) -> String {
    let mut out = String::new();
    for (n, chunk) in text.as_bytes().chunks(16).enumerate() {
        let _ = write!(out, "{:08x}  ", n * 16);
        for i in 0..16 {
            match chunk.get(i) {
                Some(b) => _ = write!(out, "{b:02x} "),
                None => out += "   ",
            }
            if i == 7 {
                out.push(' ');
            }
        }
        let shown = printable(chunk);
        let _ = writeln!(out, " |{shown}|");
    }
    out + &format!("{:08x}\n", text.len())
}

/// A dump's character column: a printable ASCII byte as itself, any other as `.`.
fn printable(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| match b {
            0x20..0x7f => char::from(b),
            _ => '.',
        })
        .collect()
}

/// `text` as `od -t x1z` prints it (no line repeats, so no `*`).
fn od_x1z(text: &str) -> String {
    let mut out = String::new();
    for (n, chunk) in text.as_bytes().chunks(16).enumerate() {
        let _ = write!(out, "{:07o}", n * 16);
        for b in chunk {
            let _ = write!(out, " {b:02x}");
        }
        let shown = printable(chunk);
        let pad = " ".repeat(3 * (16 - chunk.len()));
        let _ = writeln!(out, "{pad}  >{shown}<");
    }
    out + &format!("{:07o}\n", text.len())
}

/// How many bytes of a secret make a leak.
const WINDOW: usize = 8;

/// Fails, with each leak, when any [`WINDOW`] bytes of a secret of `rows`, plain,
/// percent-encoded or JSON-escaped (once or twice), are in `out`.
fn assert_no_leak(rows: &[Row], out: &[u8], place: &str) {
    let encodings: [fn(&str) -> String; 4] = [str::to_string, percent_encode, json_escape, |s| {
        json_escape(&json_escape(s))
    }];
    let mut windows: HashMap<Vec<u8>, usize> = HashMap::new();
    for (i, row) in rows.iter().enumerate() {
        for encode in encodings {
            let form = encode(&row.secret);
            let prefix = encode(&row.secret[..row.prefix]).len();
            // Every window that holds a byte past the token prefix.
            for (at, w) in form.as_bytes().windows(WINDOW).enumerate() {
                if at + WINDOW > prefix {
                    windows.insert(w.to_vec(), i);
                }
            }
        }
    }
    let out = without_derived_hex(out);
    let leaked: BTreeSet<usize> = out
        .windows(WINDOW)
        .filter_map(|w| windows.get(w).copied())
        .collect();
    if leaked.is_empty() {
        return;
    }
    let mut report = format!("{place}: {} of {} rows leak\n", leaked.len(), rows.len());
    for r in leaked.iter().map(|&i| &rows[i]) {
        let _ = writeln!(report, "  {} / {}: {:?}", r.shape, r.encoding, r.text);
    }
    panic!("{report}");
}

/// `out` with what reflect derives from the clock and from hashes blanked: a signal's id
/// (`SIG-<day>-<hex>`) and its dedup key. Neither holds text, but their hex changes from run to
/// run and can, by chance, hold 8 bytes of a hex secret.
fn without_derived_hex(out: &[u8]) -> Vec<u8> {
    let mut out = out.to_vec();
    for (marker, derived) in [
        (
            &b"SIG-"[..],
            (|b| b == b'-' || b == b'v' || b.is_ascii_hexdigit()) as fn(u8) -> bool,
        ),
        (b"\"dedup_key\":\"", |b: u8| b.is_ascii_hexdigit()),
    ] {
        let mut from = 0;
        while let Some(at) = out[from..].windows(marker.len()).position(|w| w == marker) {
            from += at + marker.len();
            while from < out.len() && derived(out[from]) {
                out[from] = b'#';
                from += 1;
            }
        }
    }
    out
}

/// `(the assistant's question, the user's answer, the secret in it)`: each shape of a secret
/// typed as an answer (`answered-secret`).
const ANSWERED: &[(&str, &str, &str)] = &[
    (
        "Two things before I write the config:\n1. What is the DB user?\n2. What is its password?",
        "1. admin 2. xK9#mq2!vLp",
        "xK9#mq2!vLp",
    ),
    (
        "Which user and password should the staging DB use?",
        "postgres / s3cr3tPass77",
        "s3cr3tPass77",
    ),
    (
        "Please paste the deploy token:",
        "here it is: 9f3aC1e7B2d4a6C8e0F1a3b5",
        "9f3aC1e7B2d4a6C8e0F1a3b5",
    ),
    ("What PIN should the kiosk use?", "482913", "482913"),
    ("数据库的密码是什么？", "Hx7!kd92Lq", "Hx7!kd92Lq"),
];

/// No secret of [`ANSWERED`] is in `out`, and its placeholder is.
fn assert_no_answered_secret(out: &[u8], place: &str) {
    let out = String::from_utf8_lossy(out);
    for (_, _, secret) in ANSWERED {
        assert!(!out.contains(secret), "{place}: {secret} leaked:\n{out}");
    }
    assert!(
        out.contains("[REDACTED:answered-secret]"),
        "{place}: no answered secret redacted:\n{out}"
    );
}

/// At least one `[REDACTED:` in `out`: the texts were read, not dropped.
fn assert_redacted(out: &[u8], place: &str) {
    let out = String::from_utf8_lossy(out);
    assert!(
        out.contains("[REDACTED:"),
        "{place}: nothing redacted:\n{out}"
    );
}

#[test]
fn capture_failure_leaks_no_secret_of_any_shape_or_encoding() {
    let rows = rows();
    for shape in rows.chunk_by(|a, b| a.shape == b.shape) {
        let env = Env::new();
        for row in shape {
            let payload = json!({
                "session_id": "5f0c2b0c-a7aa-4d44-b626-460d3a20d77b",
                "cwd": env.dir.path(),
                "hook_event_name": "PostToolUseFailure",
                "tool_name": "Bash",
                "tool_input": {"command": row.text},
                "tool_use_id": format!("toolu_{}_{}", row.shape.len(), row.encoding.len()),
                "error": format!("Exit code 1\nerror: permission denied: {}", row.text),
                "is_interrupt": false
            });
            let (out, _) = run_hook(&env, "capture-failure", payload.to_string().as_bytes());
            assert_silent_success("capture-failure", &out, row.shape);
        }
        let data = env.all_data_bytes();
        assert_redacted(&data, shape[0].shape);
        assert_no_leak(shape, &data, "capture-failure");
    }
}

/// A transcript line of `kind` (`user` or `assistant`) with `content`, numbered `n`.
fn entry(kind: &str, n: usize, content: Value) -> String {
    transcript_entry(kind, n, content, "s-shapes")
}

/// A session where every row's text is in a failed command and its error, in a correction and
/// a remember request, and in the path of an edited file.
fn transcript_of(rows: &[Row]) -> String {
    let mut t = String::new();
    let mut n = 0;
    let mut next = || {
        n += 1;
        n
    };
    for (i, row) in rows.iter().enumerate() {
        let call = format!("toolu_shape{i:04}");
        let edit = format!("toolu_edit{i:04}");
        t += &entry(
            "user",
            next(),
            json!(format!("Run the deploy check number {i}")),
        );
        t += &entry(
            "assistant",
            next(),
            json!([{"type": "tool_use", "id": call, "name": "Bash", "input": {"command": row.text}}]),
        );
        t += &entry(
            "user",
            next(),
            json!([{"type": "tool_result", "tool_use_id": call, "is_error": true,
                    "content": format!("Exit code 1\n{}", row.text)}]),
        );
        t += &entry(
            "assistant",
            next(),
            json!([{"type": "tool_use", "id": edit, "name": "Edit",
                    "input": {"file_path": format!("/home/dev/p/{}.md", row.text),
                              "old_string": "a", "new_string": "b"}}]),
        );
        t += &entry(
            "user",
            next(),
            json!([{"type": "tool_result", "tool_use_id": edit, "content": "ok"}]),
        );
        t += &entry(
            "assistant",
            next(),
            // What the correction answers, quoted in its signal's context.
            json!([{"type": "text", "text": format!("I ran check {i} with the old settings:\n{}", row.text)}]),
        );
        t += &entry(
            "user",
            next(),
            json!(format!(
                "That's wrong, you forgot the flag: use {} instead",
                row.text
            )),
        );
        t += &entry(
            "assistant",
            next(),
            json!([{"type": "text", "text": format!("Understood, check {i} again.")}]),
        );
        t += &entry(
            "user",
            next(),
            json!(format!("Remember that check {i} runs with {}", row.text)),
        );
    }
    t
}

#[test]
fn capture_signals_and_the_summary_leak_no_secret_of_any_shape_or_encoding() {
    let rows = rows();
    let env = Env::new();
    let transcript = env.dir.path().join("s-shapes.jsonl");
    fs::write(&transcript, transcript_of(&rows)).unwrap();
    let payload = |event: &str| {
        json!({
            "session_id": "s-shapes",
            "transcript_path": transcript,
            "cwd": env.dir.path(),
            "hook_event_name": event,
            "trigger": "auto",
            "reason": "other",
        })
        .to_string()
    };

    let dry = env
        .cmd("capture-signals")
        .arg("--transcript")
        .arg(&transcript)
        .arg("--dry-run")
        .output()
        .unwrap();
    assert!(dry.status.success());
    assert_no_leak(&rows, &dry.stdout, "capture-signals --dry-run");

    let (out, _) = run_hook(&env, "capture-signals", payload("PreCompact").as_bytes());
    assert_silent_success("capture-signals", &out, "shapes");
    let stored = env.store_lines();
    for kind in ["failure", "correction", "remember"] {
        let of_kind: Vec<&Value> = stored.iter().filter(|s| s["type"] == kind).collect();
        assert!(
            of_kind.iter().any(|s| s.to_string().contains("[REDACTED:")),
            "no redacted {kind} signal among {}",
            stored.len()
        );
    }
    assert_no_leak(&rows, &env.all_data_bytes(), "capture-signals");
    let cursors = env.data.join("cursors");
    let cursor = fs::read_dir(&cursors)
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .map(|e| fs::read(e.path()).unwrap())
        .expect("a cursor");
    assert_redacted(&cursor, "the cursor");
    assert_no_leak(&rows, &cursor, "the cursor");

    let (out, _) = run_hook(
        &env,
        "capture-session-summary",
        payload("SessionEnd").as_bytes(),
    );
    assert_silent_success("capture-session-summary", &out, "shapes");
    let summary = env
        .store_lines()
        .into_iter()
        .find(|s| s["type"] == "summary")
        .expect("a summary");
    assert_redacted(summary.to_string().as_bytes(), "the summary");
    assert_no_leak(&rows, &env.all_data_bytes(), "capture-session-summary");
}

#[test]
fn append_promote_and_export_leak_no_secret_of_any_shape_or_encoding() {
    let rows = rows();
    let env = Env::new();
    let input: String = rows
        .chunk_by(|a, b| a.shape == b.shape)
        .map(|shape| {
            let texts: Vec<&str> = shape.iter().map(|r| r.text.as_str()).collect();
            let line = json!({
                "type": "gotcha",
                "content": format!("deploy check {}", shape[0].shape),
                "context": texts.join("\n"),
                "tags": texts,
                "meta": {"note": texts.join("\n")},
            });
            format!("{line}\n")
        })
        .collect();
    let out = env
        .cmd("memory-store")
        .args(["append", "-"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_no_leak(&rows, &out.stdout, "memory-store append's output");
    let data = env.all_data_bytes();
    assert_redacted(&data, "memory-store append");
    assert_no_leak(&rows, &data, "memory-store append");

    let target = env.dir.path().join("proj").join("CLAUDE.md");
    let ids: Vec<String> = signals(&env)
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect();
    for (id, shape) in ids.iter().zip(rows.chunk_by(|a, b| a.shape == b.shape)) {
        // A dump is many lines and a learning one: promote would refuse every shape.
        let texts: Vec<&str> = shape
            .iter()
            .filter(|r| !r.encoding.contains("dump") && !r.encoding.starts_with("od "))
            .map(|r| r.text.as_str())
            .collect();
        let out = env
            .cmd("memory-store")
            .args([
                "promote",
                id,
                "--mkdir",
                "--target",
                target.to_str().unwrap(),
            ])
            .arg(format!("--content={}", texts.join(" ; ")))
            .output()
            .unwrap();
        assert_no_leak(shape, &out.stderr, "promote's error");
        if texts.join(" ").trim().contains(['\n', '\r']) {
            // A learning is one line: a value of several is refused, and not echoed.
            assert_eq!(out.status.code(), Some(2));
            continue;
        }
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_no_leak(shape, &out.stdout, "promote's output");
    }
    let written = fs::read(&target).unwrap();
    assert_redacted(&written, "CLAUDE.md");
    assert_no_leak(&rows, &written, "the promoted CLAUDE.md");
    assert_no_leak(&rows, &env.all_data_bytes(), "promote");

    // A store written before these rules: its lines hold every text as it came.
    let legacy = Env::new();
    let lines: String = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let line = json!({"id": format!("SIG-20261101-{i:010}"), "type": "gotcha",
                "content": r.text, "context": r.text, "tags": [r.text]});
            format!("{line}\n")
        })
        .collect();
    fs::create_dir_all(&legacy.data).unwrap();
    fs::write(legacy.store(), lines).unwrap();
    for format in ["jsonl", "csv"] {
        let out = legacy
            .cmd("memory-store")
            .args(["export", "--format", format])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_redacted(&out.stdout, format);
        assert_no_leak(&rows, &out.stdout, &format!("export --format {format}"));
        if format == "jsonl" {
            assert_eq!(
                stdout(&out).lines().count(),
                rows.len(),
                "one line a signal"
            );
        }
    }
}

/// `memory-store ARGS…` run in `cwd`: its stdout, after checking it succeeded.
fn store_out(env: &Env, cwd: &std::path::Path, args: &[&str]) -> Vec<u8> {
    let out = env
        .cmd("memory-store")
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Issue 22's "in every output path": each shape (written plain) planted in a signal and in a
/// session's prompts, then read back through every way reflect shows or writes it: the store,
/// `get`, `query` (jsonl, table, index), `export` (jsonl, csv), `inject-signals`, `digest` (text,
/// jsonl), `promote` into a CLAUDE.md and the learnings, and the error log.
#[test]
fn no_output_path_leaks_a_secret_of_any_shape() {
    let rows: Vec<Row> = rows()
        .into_iter()
        .filter(|r| r.encoding == "plain")
        .collect();
    let env = Env::new();
    env.known_sessions(&["s-out"]);
    let app = env.dir.path().join("app");
    fs::create_dir_all(app.join(".git")).unwrap();
    let project = app.to_str().unwrap();

    let mut ids = Vec::new();
    for row in &rows {
        let signal = json!({"type": "correction", "content": format!("Deploy with {}", row.text),
            "context": row.text, "session_id": "s-out", "project": project, "confidence": 3});
        let out = store_out(&env, &app, &["append", &signal.to_string()]);
        let id = String::from_utf8(out).unwrap().trim().to_string();
        // Verified by the user, so every printer shows it.
        store_out(&env, &app, &["update", &id, "--confidence", "4"]);
        ids.push(id);
    }
    let data = env.all_data_bytes();
    assert_redacted(&data, "the store");
    assert_no_leak(&rows, &data, "the store");

    let mut shown: Vec<(String, Vec<u8>)> = Vec::new();
    for id in &ids {
        shown.push((format!("get {id}"), store_out(&env, &app, &["get", id])));
    }
    for format in ["jsonl", "table", "index"] {
        let out = store_out(&env, &app, &["query", "--format", format]);
        shown.push((format!("query --format {format}"), out));
    }
    for format in ["jsonl", "csv"] {
        let out = store_out(&env, &app, &["export", "--format", format]);
        shown.push((format!("export --format {format}"), out));
    }
    let payload = json!({"session_id": "s-out", "cwd": app, "hook_event_name": "SessionStart",
        "source": "compact"});
    let (out, _) = run_hook(&env, "inject-signals", payload.to_string().as_bytes());
    assert!(out.status.success());
    shown.push(("inject-signals".into(), out.stdout));

    // The digest reads the session's prompts from its transcript.
    let dir = env.config.join("projects/x");
    fs::create_dir_all(&dir).unwrap();
    let transcript = dir.join("s-dig.jsonl");
    let prompts: String = rows
        .iter()
        .enumerate()
        .map(|(n, row)| {
            entry("user", 2 * n + 1, json!(format!("Use {} for it", row.text)))
                + &entry(
                    "assistant",
                    2 * n + 2,
                    json!([{"type": "text", "text": "Done."}]),
                )
        })
        .collect();
    fs::write(&transcript, prompts.replace("s-shapes", "s-dig")).unwrap();
    let end = json!({"session_id": "s-dig", "transcript_path": transcript, "cwd": app,
        "hook_event_name": "SessionEnd", "reason": "other"});
    let (out, _) = run_hook(&env, "capture-session-summary", end.to_string().as_bytes());
    assert_silent_success("capture-session-summary", &out, "the digest's session");
    for format in ["text", "jsonl"] {
        let out = store_out(&env, &app, &["digest", "--format", format]);
        shown.push((format!("digest --format {format}"), out));
    }

    let target = app.join("CLAUDE.md");
    for (id, row) in ids.iter().zip(&rows) {
        let content = format!("--content=Deploy with {}", row.text.replace('\n', " "));
        let out = store_out(
            &env,
            &app,
            &[
                "promote",
                id,
                "--target",
                target.to_str().unwrap(),
                &content,
            ],
        );
        shown.push((format!("promote {id}"), out));
    }
    shown.push(("CLAUDE.md".into(), fs::read(&target).unwrap()));
    let mut learnings = Vec::new();
    for file in fs::read_dir(env.data.join("learnings")).unwrap().flatten() {
        learnings.extend(fs::read(file.path()).unwrap());
    }
    shown.push(("the learnings".into(), learnings));

    // A hook logs the arguments it ignores: every text reaches the error log that way.
    let args: Vec<String> = rows.iter().map(|r| format!("at {}", r.text)).collect();
    let out = env.cmd("capture-signals").args(&args).output().unwrap();
    assert!(out.status.success());
    shown.push((
        "errors.log".into(),
        fs::read(env.data.join("errors.log")).unwrap(),
    ));

    for (place, out) in &shown {
        assert_no_leak(&rows, out, place);
    }
    // Each output read the texts (nothing was dropped on the way): a placeholder is in each.
    for (place, out) in shown.iter().filter(|(p, _)| !p.starts_with("promote ")) {
        assert_redacted(out, place);
    }
    assert_no_leak(&rows, &env.all_data_bytes(), "the data dir");
}

#[test]
fn the_digest_and_show_leak_no_secret_of_any_shape_or_encoding() {
    let rows = rows();
    let env = Env::new();
    // Each text in what the assistant said, in a short prompt, and in the likeliest sentence of
    // a long one (the digest cuts that one to an excerpt).
    let filler =
        "We looked at the deploy pipeline and the release notes together today. ".repeat(4);
    let mut t = String::new();
    let mut prompts = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        t += &entry(
            "assistant",
            t.lines().count() + 1,
            json!([{"type": "text", "text": format!("Check {i} ran with {}", row.text)}]),
        );
        prompts.push(t.lines().count() + 1);
        t += &entry(
            "user",
            t.lines().count() + 1,
            json!(format!("No, use {} for check {i}", row.text)),
        );
        prompts.push(t.lines().count() + 1);
        t += &entry(
            "user",
            t.lines().count() + 1,
            json!(format!(
                "{filler}From now on always run check {i} with {} and never without it. {filler}",
                row.text
            )),
        );
    }
    // Secrets typed as the answer to the assistant's question: only the question names them.
    for (question, answer, secret) in ANSWERED {
        t += &entry(
            "assistant",
            t.lines().count() + 1,
            json!([{"type": "text", "text": question}]),
        );
        prompts.push(t.lines().count() + 1);
        t += &entry("user", t.lines().count() + 1, json!(answer));
        // Said back in words no rule knows: a secret only by the question before the answer.
        t += &entry(
            "assistant",
            t.lines().count() + 1,
            json!([{"type": "text", "text": format!("Noted, {secret} it is.")}]),
        );
    }
    // The assistant saying the answered password back, in words no rule knows: it is what the
    // next prompt answers (`[after: …]`).
    t += &entry(
        "assistant",
        t.lines().count() + 1,
        json!([{"type": "text", "text": format!("Done: {} is in the config now.", ANSWERED[ANSWERED.len() - 1].2)}]),
    );
    prompts.push(t.lines().count() + 1);
    t += &entry(
        "user",
        t.lines().count() + 1,
        json!("Now add the staging host to the same config file"),
    );
    // And again, turns later: the answer was typed long before what this prompt answers.
    t += &entry(
        "assistant",
        t.lines().count() + 1,
        json!([{"type": "text", "text": format!("Added it next to {}.", ANSWERED[0].2)}]),
    );
    prompts.push(t.lines().count() + 1);
    t += &entry("user", t.lines().count() + 1, json!("and the port too"));
    // A failed call holding each text, then another: `--show` at a failed call's line prints
    // the call, its error and the calls after it in its turn.
    let mut failures = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        for (id, command, error) in [
            (
                format!("toolu_fail{i:04}"),
                row.text.to_string(),
                format!("Exit code 1\n{}", row.text),
            ),
            (
                format!("toolu_next{i:04}"),
                format!("retry {}", row.text),
                format!("Error: {}", row.text),
            ),
        ] {
            t += &entry(
                "assistant",
                t.lines().count() + 1,
                json!([{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": command}}]),
            );
            if id.starts_with("toolu_fail") {
                failures.push(t.lines().count() + 1);
            }
            t += &entry(
                "user",
                t.lines().count() + 1,
                json!([{"type": "tool_result", "tool_use_id": id, "is_error": true, "content": error}]),
            );
        }
    }
    let dir = env.config.join("projects").join("x");
    fs::create_dir_all(&dir).unwrap();
    let transcript = dir.join("s-shapes.jsonl");
    fs::write(&transcript, t).unwrap();
    for format in ["text", "jsonl"] {
        let out = env
            .cmd("memory-store")
            .args(["digest", "--budget-tokens", "10000000", "--format", format])
            .arg("--transcript")
            .arg(&transcript)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        // Every prompt is listed (by its line: a long prompt shows only its likeliest sentence,
        // which for a text holding a full stop need not be the one naming its check).
        let listed = stdout(&out);
        for line in &prompts {
            let mark = match format {
                "text" => format!("L{line} "),
                _ => format!("\"line\":{line},"),
            };
            assert!(
                listed.contains(&mark),
                "prompt at line {line} listed in {format}"
            );
        }
        assert_redacted(&out.stdout, format);
        assert_no_leak(&rows, &out.stdout, &format!("digest --format {format}"));
        assert_no_answered_secret(&out.stdout, &format!("digest --format {format}"));
        assert_no_leak(
            &rows,
            &out.stderr,
            &format!("digest --format {format}, stderr"),
        );
    }
    // `--show` at each of `lines`, which must succeed.
    let show = |lines: &[usize]| {
        let mut show = env.cmd("memory-store");
        show.arg("digest");
        for line in lines {
            show.arg("--show").arg(format!("s-shapes:{line}"));
        }
        let out = show.output().unwrap();
        assert!(out.status.success(), "{out:?}");
        out
    };
    // In sixteen runs: each `--show` reads the session whole, and one run of all 1,200 neared
    // the harness's minute per command (an eighth of them took 60 s on a machine loaded with two
    // other builds).
    let shown: Vec<u8> = prompts
        .chunks(prompts.len().div_ceil(16))
        .flat_map(|lines| show(lines).stdout)
        .collect();
    assert_eq!(
        String::from_utf8_lossy(&shown)
            .matches("## session s-shapes")
            .count(),
        prompts.len()
    );
    assert_redacted(&shown, "--show");
    assert_no_leak(&rows, &shown, "digest --show");
    assert_no_answered_secret(&shown, "digest --show");
    let out = show(&failures);
    let shown = stdout(&out);
    assert_eq!(shown.matches("a failed call: Bash").count(), rows.len());
    // Each lists the calls after it, 12 at most: its retry and the next texts' calls.
    let later: usize = (0..rows.len())
        .map(|i| (2 * (rows.len() - 1 - i) + 1).min(12))
        .sum();
    assert_eq!(shown.matches("→ failed: ").count(), later);
    assert_redacted(&out.stdout, "--show at a failed call");
    assert_no_leak(&rows, &out.stdout, "digest --show at a failed call");
    // `--show SESSION`: every failed call of the session, a line each.
    let out = show_session(&env, "s-shapes");
    assert_eq!(
        stdout(&out)
            .lines()
            .filter(|l| l.contains("→ failed: "))
            .count(),
        (2 * rows.len()).min(200)
    );
    assert_redacted(&out.stdout, "--show SESSION");
    assert_no_leak(&rows, &out.stdout, "digest --show SESSION");
    assert_no_leak(&rows, &env.all_data_bytes(), "digest");
}

/// `--show` at a failed call quotes the prompt of its turn: each text a prompt holds, then a
/// call of that turn that failed, shows with the prompt's secret hidden.
#[test]
fn show_at_a_failed_call_quotes_its_turns_prompt_without_its_secret() {
    let rows = rows();
    let env = Env::new();
    let mut t = String::new();
    let mut failures = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let id = format!("toolu_turn{i:04}");
        t += &entry(
            "user",
            t.lines().count() + 1,
            json!(format!("deploy with {}", row.text)),
        );
        t += &entry(
            "assistant",
            t.lines().count() + 1,
            json!([{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": "make deploy"}}]),
        );
        failures.push(t.lines().count() + 1);
        t += &entry(
            "user",
            t.lines().count() + 1,
            json!([{"type": "tool_result", "tool_use_id": id, "is_error": true, "content": "Exit code 2"}]),
        );
    }
    let dir = env.config.join("projects").join("x");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("s-turns.jsonl"), t).unwrap();
    let mut show = env.cmd("memory-store");
    show.arg("digest");
    for line in &failures {
        show.arg("--show").arg(format!("s-turns:{line}"));
    }
    let out = show.output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let shown = stdout(&out);
    assert_eq!(
        shown.matches("the prompt of its turn (L").count(),
        rows.len()
    );
    assert_redacted(&out.stdout, "--show at a failed call, its turn's prompt");
    assert_no_leak(
        &rows,
        &out.stdout,
        "--show at a failed call, its turn's prompt",
    );
}

/// `memory-store digest --show SESSION`, which must succeed.
fn show_session(env: &Env, session: &str) -> std::process::Output {
    let out = env
        .cmd("memory-store")
        .args(["digest", "--show", session])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    out
}

/// A secret typed as the answer to the assistant's question, right after a failed call: `--show`
/// at the call's line and at the prompt before it prints it as the user's next prompt, and
/// hides it there as the digest does where it lists it.
#[test]
fn show_hides_an_answered_secret_in_the_next_prompt() {
    let env = Env::new();
    let mut t = String::new();
    let mut places = Vec::new();
    for (i, (question, answer, _)) in ANSWERED.iter().enumerate() {
        let id = format!("toolu_ask{i}");
        let mut add = |kind: &str, content: Value| {
            let n = t.lines().count() + 1;
            t += &entry(kind, n, content);
            n
        };
        let prompt = add("user", json!("deploy the staging stack"));
        add(
            "assistant",
            json!([{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": "make deploy"}}]),
        );
        let failed = add(
            "user",
            json!([{"type": "tool_result", "tool_use_id": id, "is_error": true, "content": "Exit code 2\nerror: missing credentials"}]),
        );
        add("assistant", json!([{"type": "text", "text": question}]));
        add("user", json!(answer));
        places.extend([prompt, failed]);
    }
    let dir = env.config.join("projects").join("x");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("s-shapes.jsonl"), t).unwrap();
    for line in places {
        let out = env
            .cmd("memory-store")
            .args(["digest", "--show", &format!("s-shapes:{line}")])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        assert!(stdout(&out).contains("user, next (L"), "{out:?}");
        assert_no_answered_secret(&out.stdout, &format!("--show at L{line}"));
    }
}

#[test]
fn the_leak_check_blanks_ids_and_dedup_keys_but_not_text() {
    let rows = rows();
    let hex = rows
        .iter()
        .find(|r| r.shape == "authorization token")
        .unwrap();
    let window = &hex.secret[..WINDOW];
    let derived = format!(
        "{{\"id\":\"SIG-20261201-{window}aa\",\"related\":[\"SIG-20261201-v2{window}\"],\
         \"meta\":{{\"dedup_key\":\"{window}12345678\"}}}}"
    );
    assert_no_leak(&rows, derived.as_bytes(), "an id and a dedup key");
    for text in [
        format!("{{\"content\":\"{window}\"}}"),
        format!("{{\"id\":\"SIG-20261201-aa\",\"content\":\"SIG {window}\"}}"),
    ] {
        let caught = std::panic::catch_unwind(|| assert_no_leak(&rows, text.as_bytes(), "text"));
        assert!(caught.is_err(), "a secret in {text} went unseen");
    }
}
