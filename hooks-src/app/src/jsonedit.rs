//! Surgical edits of JSON text: append a member or an element to a container, remove one, and leave
//! every other byte as it was (numbers such as `1e2`, `-0` or a 23-digit integer, escapes such as
//! `\u00e9` or `\/`, key order, inline or spread layout, CRLF, tabs).
//!
//! The text is parsed with `jsonc-parser` in strict mode (RFC 8259: no comments, no trailing commas)
//! for the byte range of every member and element; values are never re-printed.
//!
//! The layout rules make [`append`] and [`remove`] exact inverses:
//! - appending to a non-empty container inserts, right after its last item, a comma, the separator
//!   its last two items use (or the one before its only item), and the new item: laid out over lines
//!   in the file's indent unit when that separator holds a newline, else on one line. Removing the
//!   last item removes exactly the span from the end of the item before it;
//! - an empty container `{}` or `[]` is filled as `{` newline, indent, item, newline, indent `}` (on one
//!   line in a one-line file); removing the only item of a container leaves `{}` or `[]`;
//! - removing an item that is not the last removes it with the comma and the space after it.

use jsonc_parser::ast::{ObjectPropName, Value as Node};
use jsonc_parser::common::Ranged;
use jsonc_parser::{parse_to_ast, CollectOptions, ParseOptions};
use serde::Serialize;
use serde_json::Value;

/// One step from a container to an item inside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step<'a> {
    /// The member of an object with this key (the last one, as every JSON reader takes it).
    Key(&'a str),
    /// The element of an array at this index.
    Index(usize),
}

fn strict() -> ParseOptions {
    ParseOptions {
        allow_comments: false,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

/// Parse `text` strictly; `Err` holds the parser's message (with line and column).
pub fn parse(text: &str) -> Result<Option<Node<'_>>, String> {
    parse_to_ast(text, &CollectOptions::default(), &strict())
        .map(|r| r.value)
        .map_err(|e| e.to_string())
}

fn key_of(name: &ObjectPropName<'_>) -> String {
    match name {
        ObjectPropName::String(s) => s.value.to_string(),
        ObjectPropName::Word(w) => w.value.to_string(),
    }
}

fn child<'n, 'a>(node: &'n Node<'a>, step: Step<'_>) -> Option<&'n Node<'a>> {
    match (node, step) {
        (Node::Object(o), Step::Key(k)) => o
            .properties
            .iter()
            .rev()
            .find(|p| key_of(&p.name) == k)
            .map(|p| &p.value),
        (Node::Array(a), Step::Index(i)) => a.elements.get(i),
        _ => None,
    }
}

fn node_at<'n, 'a>(root: &'n Node<'a>, path: &[Step<'_>]) -> Option<&'n Node<'a>> {
    path.iter().try_fold(root, |node, &step| child(node, step))
}

/// The keys of the object at `path`, in file order, repeats included; `None` when there is none.
pub fn keys(text: &str, path: &[Step<'_>]) -> Option<Vec<String>> {
    let root = parse(text).ok()??;
    match node_at(&root, path)? {
        Node::Object(o) => Some(o.properties.iter().map(|p| key_of(&p.name)).collect()),
        _ => None,
    }
}

/// A container as byte positions: its brackets, and each item's span (for a member, from its key to
/// the end of its value) with the bytes between key and value.
struct Container {
    open: usize,
    close: usize,
    items: Vec<(usize, usize)>,
    /// For an object's last member: what lies between its key and its value (`": "`).
    last_colon: Option<(usize, usize)>,
    object: bool,
}

fn container(node: &Node<'_>) -> Option<Container> {
    match node {
        Node::Object(o) => Some(Container {
            open: o.range.start,
            close: o.range.end - 1,
            items: o
                .properties
                .iter()
                .map(|p| (p.range.start, p.range.end))
                .collect(),
            last_colon: o
                .properties
                .last()
                .map(|p| (p.name.range().end, p.value.range().start)),
            object: true,
        }),
        Node::Array(a) => Some(Container {
            open: a.range.start,
            close: a.range.end - 1,
            items: a
                .elements
                .iter()
                .map(|e| (e.range().start, e.range().end))
                .collect(),
            last_colon: None,
            object: false,
        }),
        _ => None,
    }
}

fn splice(text: &str, from: usize, to: usize, with: &str) -> String {
    let mut out = String::with_capacity(text.len() + with.len());
    out.push_str(&text[..from]);
    out.push_str(with);
    out.push_str(&text[to..]);
    out
}

/// `text` without the item at `path` (a member or an element), or `None` when there is no such
/// item. See the module docs for what goes with it.
pub fn remove(text: &str, path: &[Step<'_>]) -> Option<String> {
    let (&last, parent) = path.split_last()?;
    let root = parse(text).ok()??;
    let node = node_at(&root, parent)?;
    let c = container(node)?;
    let index = match (node, last) {
        (Node::Object(o), Step::Key(k)) => {
            o.properties.iter().rposition(|p| key_of(&p.name) == k)?
        }
        (Node::Array(a), Step::Index(i)) if i < a.elements.len() => i,
        _ => return None,
    };
    let n = c.items.len();
    let (from, to) = if n == 1 {
        (c.open + 1, c.close)
    } else if index == n - 1 {
        (c.items[index - 1].1, c.items[index].1)
    } else {
        (c.items[index].0, c.items[index + 1].0)
    };
    Some(splice(text, from, to, ""))
}

/// The file's layout: its indent unit (the leading white space of the first indented line, two
/// spaces when none is) and its line ending.
struct Layout {
    unit: String,
    newline: &'static str,
    multiline: bool,
}

impl Layout {
    fn of(text: &str) -> Layout {
        let unit = text
            .lines()
            .skip(1)
            .map(|l| {
                let n = l.len() - l.trim_start_matches([' ', '\t']).len();
                (&l[..n], l[n..].trim())
            })
            .find(|(ws, rest)| !ws.is_empty() && !rest.is_empty())
            .map_or_else(|| "  ".to_string(), |(ws, _)| ws.to_string());
        Layout {
            unit,
            newline: if text.contains("\r\n") { "\r\n" } else { "\n" },
            multiline: text.trim().contains('\n'),
        }
    }

    /// `value` spread over lines starting at indentation `base`.
    fn spread(&self, value: &Value, base: &str) -> String {
        let fmt = serde_json::ser::PrettyFormatter::with_indent(self.unit.as_bytes());
        render_with(value, fmt).replace('\n', &format!("{}{base}", self.newline))
    }
}

/// `value` on one line: `{"a":1,"b":[2,3]}`, or with `spaced`, `{"a": 1, "b": [2, 3]}`.
fn inline(value: &Value, spaced: bool) -> String {
    if spaced {
        render_with(value, Spaced)
    } else {
        serde_json::to_string(value).expect("serializes")
    }
}

fn render_with(value: &Value, fmt: impl serde_json::ser::Formatter) -> String {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
    value.serialize(&mut ser).expect("serializes");
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// One line, a space after each comma and colon: how people write a short object by hand.
struct Spaced;

impl serde_json::ser::Formatter for Spaced {
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first {
            Ok(())
        } else {
            w.write_all(b", ")
        }
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.begin_array_value(w, first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }
}

/// The leading white space of the line that holds byte `at`.
fn line_indent(text: &str, at: usize) -> &str {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[start..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// `text` with `value` appended to the container at `path`: as member `key` of an object, or as the
/// last element of an array (`key` = `None`). `None` when there is no such container.
pub fn append(text: &str, path: &[Step<'_>], key: Option<&str>, value: &Value) -> Option<String> {
    let root = parse(text).ok()??;
    let c = container(node_at(&root, path)?)?;
    if c.object != key.is_some() {
        return None;
    }
    let layout = Layout::of(text);
    let key_text = |colon: &str| match key {
        Some(k) => format!("{}{colon}", serde_json::to_string(k).expect("serializes")),
        None => String::new(),
    };
    let Some(&(_, last_end)) = c.items.last() else {
        // Empty: spread over lines in a file that is (or, being just `{}`, may as well be).
        let spread = layout.multiline || path.is_empty();
        let inserted = if spread {
            let outer = line_indent(text, c.open);
            let inner = format!("{outer}{}", layout.unit);
            format!(
                "{nl}{inner}{}{}{nl}{outer}",
                key_text(": "),
                layout.spread(value, &inner),
                nl = layout.newline
            )
        } else {
            format!("{}{}", key_text(":"), inline(value, false))
        };
        return Some(splice(text, c.open + 1, c.close, &inserted));
    };
    // The separator between the last two items, or the space before the only one (on one line,
    // `{"x": 1}` spaces its items like its colon: `{"x": 1, "y": 2}`).
    let n = c.items.len();
    let colon = c.last_colon.map_or("", |(from, to)| &text[from..to]);
    let sep = if n >= 2 {
        let after_prev = c.items[n - 2].1;
        let comma = after_prev + text[after_prev..].find(',')?;
        &text[comma + 1..c.items[n - 1].0]
    } else {
        match &text[c.open + 1..c.items[0].0] {
            "" if colon.ends_with(' ') => " ",
            before => before,
        }
    };
    let rendered = if sep.contains('\n') {
        layout.spread(value, sep.rsplit('\n').next().unwrap_or(""))
    } else {
        inline(value, sep.contains(' ') || colon.contains(' '))
    };
    let inserted = format!(",{sep}{}{rendered}", key_text(colon));
    Some(splice(text, last_end, last_end, &inserted))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn append_then_remove_gives_the_text_back() {
        let v = json!({"hooks": [{"type": "command", "timeout": 30}]});
        for text in [
            "{\n  \"a\": 1e2,\n  \"b\": [-0, 12345678901234567890123]\n}\n",
            "{\r\n\t\"a\": \"\\u00e9\\/\"\r\n}",
            "{\"a\":1}",
            "{\"a\": 1, \"b\": 2}",
            "{\n    \"a\": {\"x\": 1},\n\n    \"b\": 2\n}",
            "{}",
            "  {\"a\":[]}  ",
        ] {
            let on = append(text, &[], Some("hooks"), &v).unwrap();
            assert!(on.starts_with(&text[..text.find('{').unwrap() + 1]), "{on}");
            assert_eq!(
                serde_json::from_str::<Value>(&on).unwrap()["hooks"],
                v,
                "{on}"
            );
            assert_eq!(remove(&on, &[Step::Key("hooks")]).unwrap(), text, "{on}");
        }
    }

    #[test]
    fn appended_items_follow_the_siblings_layout() {
        let text = "{\n    \"a\": [\n        1\n    ],\n    \"b\": {\"x\": 1}\n}";
        let out = append(text, &[Step::Key("a")], None, &json!({"k": 2})).unwrap();
        assert_eq!(
            out,
            "{\n    \"a\": [\n        1,\n        {\n            \"k\": 2\n        }\n    ],\n    \"b\": {\"x\": 1}\n}"
        );
        let out = append(text, &[Step::Key("b")], Some("y"), &json!([1, {"z": 2}])).unwrap();
        assert!(out.contains("{\"x\": 1, \"y\": [1, {\"z\": 2}]}"), "{out}");
        let out = append("[1,2]", &[], None, &json!({"z": [3, 4]})).unwrap();
        assert_eq!(out, "[1,2,{\"z\":[3,4]}]");
        let empty = "{\n\t\"e\": []\r\n}";
        let out = append(empty, &[Step::Key("e")], None, &json!(1)).unwrap();
        assert_eq!(out, "{\n\t\"e\": [\r\n\t\t1\r\n\t]\r\n}");
        assert_eq!(
            remove(&out, &[Step::Key("e"), Step::Index(0)]).unwrap(),
            empty
        );
    }

    #[test]
    fn removing_keeps_the_rest() {
        let text = "[1, 2,\n 3]";
        assert_eq!(remove(text, &[Step::Index(0)]).unwrap(), "[2,\n 3]");
        assert_eq!(remove(text, &[Step::Index(1)]).unwrap(), "[1, 3]");
        assert_eq!(remove(text, &[Step::Index(2)]).unwrap(), "[1, 2]");
        assert_eq!(remove("[ 1 ]", &[Step::Index(0)]).unwrap(), "[]");
        assert_eq!(remove(text, &[Step::Index(3)]), None);
        assert_eq!(remove(text, &[Step::Key("a")]), None);
        // A repeated key: the last one is the one every reader sees.
        assert_eq!(
            remove("{\"a\":1,\"a\":2}", &[Step::Key("a")]).unwrap(),
            "{\"a\":1}"
        );
        assert_eq!(keys("{\"a\":1,\"a\":2}", &[]).unwrap(), ["a", "a"]);
    }

    #[test]
    fn strict_json_only() {
        for bad in [
            "{\"a\":1,}",
            "// c\n{}",
            "{'a':1}",
            "{a:1}",
            "[0x1]",
            "[+1]",
            "[.5]",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
