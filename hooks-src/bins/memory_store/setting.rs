//! `memory-store setting KEY VALUE`: set a Claude Code setting the user approved in `/reflect`
//! (a setting does some jobs better than a line of CLAUDE.md: `attribution.commit` `""` for "no
//! signature in commits"). The file is edited as `reflect-toggle` edits it: every other byte
//! kept, backed up, written atomically, refused when it is not valid JSON. Only scalar values,
//! and never a key that runs a command, sets the environment, grants permissions or turns a
//! safeguard off (all hooks, a skill's shell, the prompt before bypassing permissions): those are
//! for the user to write.

use reflect_app::settings;
use reflect_base::error::{Error, Result};
use serde_json::Value;

use crate::cli::Setting;
use crate::Ctx;
use reflect::cli_support::emit;

/// Top-level keys this verb never sets: what runs a command, what reaches the environment,
/// permissions, plugins, MCP servers or login, and what turns a safeguard off.
#[rustfmt::skip]
const REFUSED: &[&str] = &[
    // Run a command.
    "hooks", "apiKeyHelper", "awsAuthRefresh", "awsCredentialExport", "otelHeadersHelper",
    "statusLine", "subagentStatusLine", "fileSuggestion",
    // The environment, permissions, plugins, MCP servers, login.
    "env", "permissions", "sandbox", "enabledPlugins", "extraKnownMarketplaces", "pluginConfigs",
    "enableAllProjectMcpServers", "enabledMcpjsonServers", "disabledMcpjsonServers",
    "allowedMcpServers", "deniedMcpServers", "forceLoginMethod", "forceLoginOrgUUID",
    "allowedHttpHookUrls", "httpHookAllowedEnvVars", "autoMemoryDirectory",
    // Safeguards.
    "disableAllHooks", "allowManagedHooksOnly", "disableSkillShellExecution",
    "skipDangerousModePermissionPrompt",
];

impl Setting {
    pub fn run(self, ctx: &Ctx) -> Result<()> {
        let keys: Vec<&str> = self.key.split('.').collect();
        let plain = |k: &&str| {
            !k.is_empty()
                && k.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        };
        if !keys.iter().all(plain) {
            return Err(Error::usage(format!(
                "invalid setting '{}': keys of letters and digits, dotted (attribution.commit)",
                self.key
            )));
        }
        if REFUSED.contains(&keys[0]) {
            return Err(Error::usage(format!(
                "{} runs commands, sets the environment, grants permissions or turns a safeguard off: set it yourself",
                keys[0]
            )));
        }
        let value: Value = serde_json::from_str(&self.value)
            .ok()
            .filter(|v: &Value| !v.is_object() && !v.is_array() && !v.is_null())
            .ok_or_else(|| {
                Error::usage(format!(
                    "invalid value '{}': true, false, a number or a quoted string (\"\" for an empty one)",
                    self.value
                ))
            })?;
        let file = self
            .settings
            .map(|f| std::path::absolute(&f).unwrap_or(f))
            .unwrap_or_else(|| ctx.paths.settings());
        let done = settings::set_member(&file, &ctx.paths.backups(), &keys, &value)?;
        if !done.written {
            emit(&format!(
                "{} already sets {} to {value}; nothing changed\n",
                file.display(),
                self.key
            ));
            return Ok(());
        }
        let backup = done
            .backup
            .map(|b| format!("; backup {}", b.display()))
            .unwrap_or_default();
        emit(&format!(
            "set {} to {value} in {}{backup}\n",
            self.key,
            file.display()
        ));
        Ok(())
    }
}
