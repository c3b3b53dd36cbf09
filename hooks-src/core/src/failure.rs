//! The PostToolUseFailure signal: one failed tool call, its tool, the redacted error and a short
//! summary of what was tried (the Bash command, the file path, the search pattern).

use serde_json::Value;

use crate::hookio::Payload;
use crate::render::one_line;
use crate::signal::{Kind, Signal};

/// Longest error text kept in a signal's context (Claude Code already caps errors at ~10,000).
const ERROR_CONTEXT_CHARS: usize = 1500;
/// How much of an error or a tool input a hook reads at all: enough for every headline and
/// excerpt we keep, and a bound on redaction's cost when a payload carries megabytes.
pub(crate) const SCAN_BYTES: usize = 16 * 1024;

/// What the tool was asked to do, in one short line.
pub fn input_summary(tool: &str, input: &Value) -> String {
    let field = |name: &str| input.get(name).and_then(Value::as_str).map(str::to_string);
    let summary = match tool {
        "Bash" | "BashOutput" => field("command"),
        "Read" | "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => {
            field("file_path").or_else(|| field("notebook_path"))
        }
        "Glob" => field("pattern"),
        "Grep" => field("pattern").map(|p| match field("path") {
            Some(path) => format!("{p} in {path}"),
            None => p,
        }),
        "WebFetch" => field("url"),
        "WebSearch" => field("query"),
        "Task" | "Agent" => field("description").or_else(|| field("subagent_type")),
        _ => None,
    };
    let summary = summary.unwrap_or_else(|| match input {
        // Unknown tools (MCP and the like): the first string argument says most.
        Value::Object(map) => map
            .values()
            .find_map(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        Value::Null => String::new(),
        other => other.to_string(),
    });
    // Redact before cutting: a cut token no longer matches its rule and would leak its start.
    one_line(&crate::redact::redact_prefix(&summary, SCAN_BYTES), 160)
}

/// The headline of an error: its first line, plus the first line of output after a bare
/// `Exit code N` (which alone says nothing).
pub fn error_head(error: &str) -> String {
    let mut lines = error.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("unknown error");
    let is_bare_exit = first
        .strip_prefix("Exit code ")
        .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()));
    let head = match (is_bare_exit, lines.next()) {
        (true, Some(detail)) => format!("{first}: {detail}"),
        _ => first.to_string(),
    };
    one_line(&head, 160)
}

/// The signal for a PostToolUseFailure payload; `None` for a user interrupt (not a failure) or a
/// payload that names no tool.
pub fn failure_signal(p: &Payload) -> Option<Signal> {
    if p.is_interrupt == Some(true) {
        return None;
    }
    let tool = p.tool_name.as_deref().filter(|t| !t.is_empty())?;
    // Redacted before the headline and the excerpt cut it (see `input_summary`).
    let error = crate::redact::redact_prefix(p.error.as_deref().unwrap_or(""), SCAN_BYTES);
    let error: &str = &error;
    let tried = p
        .tool_input
        .as_ref()
        .map(|i| input_summary(tool, i))
        .unwrap_or_default();
    let mut content = format!("{tool} failed: {}", error_head(error));
    if !tried.is_empty() {
        content.push_str(&format!(" (on `{}`)", one_line(&tried, 100)));
    }
    let mut sig = Signal::new(Kind::Failure, content);
    let excerpt: String = error.chars().take(ERROR_CONTEXT_CHARS).collect();
    sig.context = if tried.is_empty() {
        format!("Error: {excerpt}")
    } else {
        format!("Tried: {tried}\nError: {excerpt}")
    };
    sig.session_id = p.session_id.clone();
    sig.project = p.cwd.clone();
    sig.category = Some("tool-failure".into());
    sig.tags = vec![tool.to_ascii_lowercase()];
    sig.source.hook = Some("PostToolUseFailure".into());
    sig.meta.insert("tool".into(), Value::from(tool));
    if let Some(id) = p.tool_use_id.as_deref().filter(|id| !id.is_empty()) {
        sig.meta.insert("tool_use_id".into(), Value::from(id));
    }
    if let Some(agent) = &p.agent_id {
        sig.meta
            .insert("agent_id".into(), Value::from(agent.as_str()));
    }
    Some(sig)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hookio::parse_payload;

    #[test]
    fn bash_failure_names_the_command_and_the_real_error() {
        let p = parse_payload(br#"{"session_id":"s","cwd":"/w","tool_name":"Bash","tool_input":{"command":"npm test","description":"run"},"tool_use_id":"toolu_1","error":"Exit code 1\n\nnpm ERR! missing script: test\nmore","is_interrupt":false}"#).unwrap();
        let s = failure_signal(&p).unwrap();
        assert_eq!(
            s.content,
            "Bash failed: Exit code 1: npm ERR! missing script: test (on `npm test`)"
        );
        assert!(s.context.starts_with("Tried: npm test\nError: Exit code 1"));
        assert_eq!(s.tool_use_id(), Some("toolu_1"));
        assert_eq!(s.project.as_deref(), Some("/w"));
        assert_eq!(s.source.hook.as_deref(), Some("PostToolUseFailure"));
    }

    #[test]
    fn read_failure_names_the_file() {
        let p = parse_payload(br#"{"tool_name":"Read","tool_input":{"file_path":"/nonexistent/missing.txt"},"error":"File does not exist. Note: your current working directory is /home/dev/work."}"#).unwrap();
        let s = failure_signal(&p).unwrap();
        assert_eq!(s.content, "Read failed: File does not exist. Note: your current working directory is /home/dev/work. (on `/nonexistent/missing.txt`)");
    }

    #[test]
    fn interrupts_and_toolless_payloads_are_not_failures() {
        assert!(failure_signal(
            &parse_payload(br#"{"tool_name":"Bash","is_interrupt":true,"error":"x"}"#).unwrap()
        )
        .is_none());
        assert!(failure_signal(&parse_payload(br#"{"error":"x"}"#).unwrap()).is_none());
    }

    #[test]
    fn unknown_tools_use_their_first_string_argument() {
        let input: Value = serde_json::json!({"server": "db", "query": "select 1"});
        assert_eq!(input_summary("mcp__db__run", &input), "db");
        assert_eq!(
            input_summary(
                "Grep",
                &serde_json::json!({"pattern": "fn main", "path": "src"})
            ),
            "fn main in src"
        );
    }
}
