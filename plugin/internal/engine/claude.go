package engine

import (
	"encoding/json"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/internal/classify"
	"github.com/ctxhook/ctxhook/plugin/internal/claude"
	"github.com/ctxhook/ctxhook/plugin/internal/jsonfast"
	"github.com/ctxhook/ctxhook/plugin/modeltext"
)

// claudeHook is one hook call in Claude Code's dialect: Claude Code's
// own, or a descendant's (claudekin.go), whose differences are its kin.
type claudeHook struct {
	p   *claude.Payload
	kin claudeKin
}

// parseClaudeAs parses payloads of Claude Code's dialect for one harness
// speaking it.
func parseClaudeAs(kin claudeKin) parser {
	return func(payload string, e *jsonfast.Expander) (dialect, error) {
		p, err := claude.ParseWith(rawBytes(payload), e)
		if err != nil {
			return nil, err
		}
		return claudeHook{p, kin}, nil
	}
}

func (h claudeHook) session() string { return orUnknown(h.p.SessionID) }

func (h claudeHook) decide(d *decision, event string) {
	p := h.p
	if p.HookEventName != "" {
		event = p.HookEventName // what the harness actually fired
	}
	if h.kin.answer != nil {
		defer func() {
			d.stdout = h.kin.answer(d.stdout)
			if d.unstored != nil {
				d.unstored.Stdout = h.kin.answer(d.unstored.Stdout)
			}
		}()
	}
	if h.kin.leavesForeign && p.Foreign() != "" {
		// Cursor (its third-party hooks setting) and Copilot run Claude
		// Code's hooks as well as their own: ctxhook's cursor and copilot
		// hooks decide their calls, so each is recorded and counted once.
		return
	}
	switch event {
	case claude.PreToolUse:
		d.preTool(h.call(d, event), true, func(updated json.RawMessage, hint string) string {
			if updated == nil {
				return claude.AdditionalContext(event, hint)
			}
			return claude.PreToolUseAllow(updated, hint)
		})
	case claude.PostToolUse, claude.PostToolUseFailure:
		// Codex ignores updatedMCPToolOutput: only Claude Code is shaped.
		c := h.call(d, event)
		h.overflow(d, &c)
		d.postTool(c, h.kin.canReplace, func(context, replacement string) string {
			return claude.PostToolUseOutput(event, context, replacement)
		})
	case claude.UserPromptSubmit:
		d.record(d.newEvent(event, abi.CategoryPrompt, p.Cwd), p.Prompt)
		// compacted where no context could be added (Codex's PostCompact)
		if block := d.blockAt(""); block != "" {
			d.stdout = claude.AdditionalContext(event, block)
		}
	case claude.SessionStart:
		d.record(d.newEvent(event, abi.CategorySession, p.Cwd), "session start: "+p.Source)
		h.indexTranscript(d, false) // a resumed session's earlier turns
		// The user hears when the tool hooks will not be answered (only
		// Claude Code has mcp_tool hooks; the host says why).
		warn := ""
		if h.kin.mcpToolHooks {
			warn = d.req.HookServer
		}
		d.stdout = claude.SessionStartOutput(d.blockAt(p.Source), warn)
	case claude.PreCompact, claude.PostCompact:
		// Neither can add context: Claude Code's SessionStart (source
		// "compact") that follows gives the block, elsewhere the next
		// prompt does.
		d.compacted()
	case claude.SessionEnd:
		d.record(d.newEvent(event, abi.CategorySession, p.Cwd), "session end: "+p.Reason)
		h.indexTranscript(d, true)
	case claude.Stop:
		d.record(d.newEvent(event, abi.CategorySession, p.Cwd), p.LastMessage)
		h.indexTranscript(d, true) // the turn is over
	}
}

// files names the file Claude Code saved a large result to, when the
// payload's response is its stub: the host reads it for the decision.
func (h claudeHook) files() []string {
	if ov, ok := h.p.ParseOverflow(); ok {
		return []string{ov.Path}
	}
	return nil
}

// overflow puts the saved result in place of its stub, once the host
// has read it; a file it could not read leaves the stub as the response,
// and a line saying why.
func (h claudeHook) overflow(d *decision, c *toolCall) {
	ov, ok := h.p.ParseOverflow()
	if !ok {
		return
	}
	content, err := d.file(ov.Path)
	if err != nil {
		d.stderr = "the result Claude Code saved to " + modeltext.Escape(ov.Path, 300) + " was not read (" + err.Error() + "); only its stub is stored"
		return
	}
	c.file, c.fileJSON = &content, ov.JSON
}

// indexTranscript asks the host to index what is new in the session's
// transcript (Claude Code and Codex name it in every payload). Droid's
// and Qwen Code's are in formats of their own, which ctxhook does not read.
func (h claudeHook) indexTranscript(d *decision, final bool) {
	if h.p.TranscriptPath == "" || !h.kin.transcripts {
		return
	}
	d.effects = append(d.effects, abi.Effect{Op: abi.OpIndexTranscript, Session: d.session,
		Path: h.p.TranscriptPath, Format: d.req.Harness, Final: final})
}

func (h claudeHook) call(d *decision, event string) toolCall {
	p := h.p
	c := toolCall{event: event, cwd: p.Cwd, tool: p.ToolName, toolUseID: p.ToolUseID,
		category: classify.Tool(p.ToolName), input: p.ToolInput, response: p.ToolResponse}
	c.server, c.mcpTool, c.isMCP = classify.MCPName(p.ToolName, p.Server(), d.serverNames())
	if h.kin.tool != nil {
		h.kin.tool(d, p, &c)
	}
	if c.isMCP { // the names of Droid's and Copilot's MCP tools have no mcp__ prefix
		c.category = abi.CategoryMCP
	}
	if event == claude.PostToolUseFailure {
		c.failed, c.response = true, p.Error
	}
	return c
}
