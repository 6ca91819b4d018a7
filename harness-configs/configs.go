// Package harnessconfigs embeds the ready-made configuration ctxhook writes
// into each harness, so `ctxhook install` and a user copying by hand use
// the very same files.
package harnessconfigs

import "embed"

// Placeholder is replaced by the shell-quoted path of the ctxhook binary.
const Placeholder = "{{CTXHOOK}}"

// FS holds <harness>/... and config.toml.
//
//go:embed claude-code/settings.json codex/hooks.json gemini/settings.json cursor/hooks.json config.toml
var FS embed.FS
