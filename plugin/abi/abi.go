// Package abi is the contract between plugin.wasm and every host, in Go.
//
// It mirrors ABI.md at the repository root name for name: the export names,
// the version, and the JSON messages that cross the boundary. A test
// (abi_doc_test.go) fails when this file and the document drift apart.
//
// The package imports only the standard library so that the guest, the Go
// host and any third-party Go host can share it without pulling anything in.
package abi

import (
	"encoding/json"
	"hash/fnv"
)

// Version is the ABI version this code speaks. Hosts call ExportABIVersion on
// load and refuse a plugin whose version differs, saying both numbers.
const Version = 1

// Export names. A host checks that all of them exist before the first call.
const (
	// ExportABIVersion takes no input and outputs the decimal ABI version.
	ExportABIVersion = "ctxhook_abi_version"
	// ExportPrepare takes a PrepareRequest and outputs a PrepareResponse: the
	// state keys the host must read before calling ExportHandle.
	ExportPrepare = "ctxhook_prepare"
	// ExportHandle takes a HandleRequest and outputs a HandleResponse.
	ExportHandle = "ctxhook_handle"
	// ExportPrepareRaw is ExportPrepare with the payload as raw bytes
	// after a one-line JSON header ({"harness":...,"event":...}), so it is
	// neither escaped by the host nor unescaped by the guest. Optional for
	// hosts; the Go host uses it.
	ExportPrepareRaw = "ctxhook_prepare_raw"
	// ExportPrepareFD is ExportPrepare with the payload read from the
	// guest's WASI standard input: the Extism input is the request
	// without its payload and with PayloadBytes set, and exactly that
	// many bytes wait on fd 0. Optional for hosts; see ABI.md "Bulk
	// bytes over WASI".
	ExportPrepareFD = "ctxhook_prepare_fd"
	// ExportHandleFD is ExportHandle with bulk bytes over WASI: the
	// payload (when not prepared) is read from fd 0 like ExportPrepareFD's,
	// and every large string of the answer is written to fd 1 as a blob
	// that HandleResponse.Blobs names, instead of being escaped into the
	// JSON. Optional for hosts; the Go host uses it.
	ExportHandleFD = "ctxhook_handle_fd"
	// ExportWarm takes no input, decides a few fixed sample hooks and
	// proxy messages and throws the decisions away, and outputs "ok". A
	// host calls it on a new instance before it is needed, so that the
	// first real decision does not pay for what the guest does once.
	// Optional for hosts; it changes nothing an instance decides later.
	ExportWarm = "ctxhook_warm"
)

// ErrNotPrepared starts the error of a ctxhook_handle whose Prepared names
// a payload the instance does not hold.
const ErrNotPrepared = "prepared payload not held"

// RequiredExports lists every export a host must find in the module.
var RequiredExports = []string{ExportABIVersion, ExportPrepare, ExportHandle}

// Harness names accepted in requests.
const (
	HarnessClaudeCode = "claude-code"
	// HarnessCodex is OpenAI Codex CLI, whose command hooks take Claude
	// Code's payloads and answers (its tool_response also carries _meta).
	HarnessCodex = "codex"
	// HarnessDroid is Factory Droid's command hooks: Claude Code's
	// payloads and answers, with MCP tools named <server>___<tool> and a
	// PostToolUse tool_response that is the result's text alone.
	HarnessDroid = "droid"
	// HarnessCopilot is GitHub Copilot CLI's hooks in Claude Code's
	// format: MCP tools named <server>-<tool>, the result in tool_result
	// (its text for the model), and text for the model read only at the
	// answer's top level.
	HarnessCopilot = "copilot"
	// HarnessQwen is Qwen Code's command hooks: Claude Code's events,
	// payloads and answers, with Gemini CLI's tool_response
	// ({llmContent, returnDisplay}); it ignores a changed input, so its
	// relay runs in the proxy.
	HarnessQwen = "qwen"
	// HarnessPi is the Pi coding agent's tool events, sent by ctxhook's
	// Pi extension with Pi's event object inside (package pi).
	HarnessPi = "pi"
	// HarnessOpenClaw is OpenClaw's plugin hooks, a descendant of Pi:
	// ctxhook's OpenClaw plugin sends before_tool_call and after_tool_call
	// as Pi's tool_call and tool_result (package pi). OpenClaw cannot
	// replace a result, so the plugin's replacement is never applied.
	HarnessOpenClaw = "openclaw"
	// HarnessAuggie is Auggie's (the Augment Code CLI's) command hooks:
	// Claude Code's answers, its own payloads (conversation_id,
	// tool_output as text, MCP tools named <tool>_<server>).
	HarnessAuggie = "auggie"
	// HarnessCline is Cline CLI's hook files: its own payloads (taskId,
	// hookName, tool_result with the MCP result object; MCP tools named
	// <server>__<tool>) and answers (contextModification).
	HarnessCline = "cline"
	// HarnessGemini is Gemini CLI's command hooks.
	HarnessGemini = "gemini"
	// HarnessCursor is Cursor's command hooks (hooks.json version 1).
	HarnessCursor = "cursor"
	// HarnessOpenCode is the OpenCode plugin loader: the payload is an
	// OpenCodePayload and stdout an OpenCodeAnswer (see ABI.md).
	HarnessOpenCode = "opencode"
	// HarnessKilo is Kilo CLI, a descendant of OpenCode with the same
	// plugin API: the OpenCode loader runs there unchanged, and its
	// payloads and answers are HarnessOpenCode's. Events are stored under
	// this name.
	HarnessKilo = "kilo"
	// HarnessTranscript chunks session transcripts: the payload is a
	// TranscriptPayload, the event its format, stdout a TranscriptAnswer.
	HarnessTranscript = "transcript"
	// HarnessMCPProxy is ctxhook's own MCP proxy: the payload is a
	// ProxyPayload and the events are ProxyRequest and ProxyResponse.
	HarnessMCPProxy = "mcp-proxy"
)

// Proxy events.
const (
	// ProxyRequest: a client-to-server message. stdout is the line to
	// forward instead (newline-terminated), or empty to forward it unchanged.
	ProxyRequest = "request"
	// ProxyResponse: a server-to-client response to a tools/call.
	ProxyResponse = "response"
	// ProxyStrip: the same response again, after its ProxyResponse
	// decision failed (a trap, a timeout, an instance gone). The plugin
	// does the least that keeps the relay safe: capture the token,
	// hide it from the client, nothing else (no record, no redaction, no
	// shaping). stdout is the line to forward, or empty when the message
	// needs no change. A host that cannot get this answer either must
	// not forward the message (it answers the request with an error).
	ProxyStrip = "strip"
	// ProxyError: an error answer the proxy made itself from what the
	// upstream said (an HTTP status and body, which may echo credentials).
	// stdout is the same message with its error redacted as stored text
	// is; the proxy sends that, and nothing of the body when it gets no
	// answer.
	ProxyError = "error"
)

// OpenCodePayload is what the OpenCode plugin loader sends as the payload
// of a HarnessOpenCode request: the hook that fired (tool.execute.before,
// tool.execute.after, chat.message), the project directory, the MCP
// servers configured (a tool's server is named in its tool name), the
// hook's input, and its output object as it stands.
type OpenCodePayload struct {
	Hook       string   `json:"hook"`
	Directory  string   `json:"directory"`
	MCPServers []string `json:"mcp_servers"`
	Input      struct {
		Tool      string          `json:"tool"`
		SessionID string          `json:"sessionID"`
		CallID    string          `json:"callID"`
		Args      json.RawMessage `json:"args"`
	} `json:"input"`
	Output json.RawMessage `json:"output"`
}

// OpenCodeAnswer is the stdout of a HarnessOpenCode request, which the
// loader applies. Args replaces the contents of output.args in place;
// Replace replaces an MCP result's content with one text block;
// AppendText is added for the model after the tool result (a text block
// for MCP, a paragraph for built-ins). Context is added to the compaction
// prompt (experimental.session.compacting: output.context).
type OpenCodeAnswer struct {
	Args       json.RawMessage `json:"args,omitempty"`
	Replace    string          `json:"replace,omitempty"`
	AppendText string          `json:"append_text,omitempty"`
	Context    string          `json:"context,omitempty"`
}

// ProxyPayload is what the proxy sends as the payload of its requests.
type ProxyPayload struct {
	// SessionID identifies the client connection (one agent session).
	SessionID string `json:"session_id"`
	// Server is the proxied server's name, as in Config.Servers.
	Server string `json:"server"`
	// Message is the JSON-RPC message.
	Message json.RawMessage `json:"message"`
	// Request is, for a response, the client's request it answers.
	Request json.RawMessage `json:"request,omitempty"`
	// Upstream names the server process the proxy talks to (a stdio
	// child: its pid and start time), when the proxy knows it: a name not
	// seen before with a token held means a new process, which may not
	// know the token (ServerConfig.OnResume).
	Upstream string `json:"upstream,omitempty"`
}

// TranscriptPayload is new bytes of a session transcript to chunk.
type TranscriptPayload struct {
	// Format is the transcript's writer: "claude-code", "codex",
	// "copilot", "droid", "gemini", "qwen", "pi", "opencode" or "kilo".
	Format string `json:"format"`
	// Path is the transcript file (recorded with each chunk).
	Path string `json:"path"`
	// Session is the agent session, when the host knows it (its state
	// supplies the relay's tokens, to redact).
	Session string `json:"session,omitempty"`
	// Data is whole lines read from the file, from where the last pass
	// stopped.
	Data string `json:"data"`
	// Final says the session's last turn is over (Stop, SessionEnd, or a
	// file no longer written to).
	Final bool `json:"final,omitempty"`
}

// TranscriptAnswer is the stdout of a transcript request.
type TranscriptAnswer struct {
	// Consumed is how many bytes of Data the chunks cover: the next pass
	// starts there.
	Consumed int `json:"consumed"`
	// Chunks is how many store_chunk effects follow.
	Chunks int `json:"chunks"`
}

// Chunk is one logical turn of a transcript, redacted, for the index.
type Chunk struct {
	TimeMS     int64  `json:"ts_ms"`
	Session    string `json:"session"`
	Harness    string `json:"harness"`
	Path       string `json:"path"`
	Cwd        string `json:"cwd,omitempty"`
	Text       string `json:"text"`
	Bytes      int    `json:"bytes"`
	Redactions int    `json:"redactions,omitempty"`
}

// TokenPlaceholder replaces a relayed token in what the client sees, so
// the model neither reads nor retypes it.
const TokenPlaceholder = "[session token held by ctxhook]"

// PrepareRequest asks the plugin which state the host should load.
type PrepareRequest struct {
	Harness string `json:"harness"`
	Event   string `json:"event"`
	// Payload is the harness's hook input exactly as read from stdin.
	Payload string `json:"payload"`
	// PayloadBytes, for ExportPrepareFD only, is the payload's length on
	// the guest's standard input (Payload is then empty).
	PayloadBytes int `json:"payload_bytes,omitempty"`
}

// PrepareResponse names the state keys to load. Keys are opaque to the
// host; it must not derive file names from them without hashing.
type PrepareResponse struct {
	StateKeys []string `json:"state_keys"`
	// Prepared, when set, says this instance kept the parsed payload: the
	// next ctxhook_handle on the same instance may send it back in
	// HandleRequest.Prepared instead of the payload.
	Prepared string `json:"prepared,omitempty"`
	// Files names files the decision needs read (Claude Code writes a
	// large MCP result to a file and hands the hook a stub naming it).
	// The host sends them in HandleRequest.Files, each only if it is a
	// regular file of the hook's own user, not a link, of at most
	// MaxFileBytes; else with its error.
	Files []string `json:"files,omitempty"`
}

// MaxFileBytes bounds a file the host reads for the plugin.
const MaxFileBytes = 128 << 20

// File is a file PrepareResponse.Files named, as the host read it.
type File struct {
	Path string `json:"path"`
	// Content is the file's bytes (ctxhook_handle_fd: empty, the bytes
	// follow the payload on fd 0).
	Content string `json:"content,omitempty"`
	// Bytes is the content's length.
	Bytes int `json:"bytes"`
	// Error says why the file was not read; Content is then empty.
	Error string `json:"error,omitempty"`
}

// HandleRequest carries everything a decision depends on. The plugin reads
// no clock, no environment and no file: all of it arrives here.
type HandleRequest struct {
	Harness string `json:"harness"`
	Event   string `json:"event"`
	Payload string `json:"payload"`
	// Prepared is PrepareResponse.Prepared from the call just before on
	// the same instance, with Payload left empty: the plugin decides on
	// the payload it kept. If the instance no longer holds it, the call
	// fails with an error starting with ErrNotPrepared, and the host
	// sends the payload instead.
	Prepared string `json:"prepared,omitempty"`
	// Config is the user's configuration, already parsed by the host.
	Config Config `json:"config"`
	// Env holds the CTXHOOK_* environment variables the host saw, raw.
	Env map[string]string `json:"env,omitempty"`
	// Environ is the hook's whole environment as KEY=VALUE lines. The
	// plugin takes the values of sensitive variables (GITHUB_TOKEN,
	// DB_PASSWORD, *_API_KEY...) as known values and redacts them
	// wherever they appear; it never stores or echoes the list.
	Environ []string `json:"environ,omitempty"`
	// State maps each key from PrepareResponse to its stored value; a key
	// with no stored value is absent.
	State map[string]string `json:"state,omitempty"`
	// StateError is non-empty when the host could not read state. The
	// plugin then decides from empty state and errs towards nudging.
	StateError string `json:"state_error,omitempty"`
	// NowMS is the host's wall clock in Unix milliseconds.
	NowMS int64 `json:"now_ms"`
	// RequestID names the hook or message being decided, when the host
	// has a name for it (CTXHOOK_REQUEST_ID). A hook decided twice (its
	// daemon slow to answer, the hook run again in-process) keeps one
	// name, and its events the same keys: the pointer one decision gave
	// the model names the event the store kept of either. Without it,
	// keys are made with NowMS.
	RequestID string `json:"request_id,omitempty"`
	// PayloadBytes, for ExportHandleFD only, is the payload's length on
	// the guest's standard input (Payload is then empty).
	PayloadBytes int `json:"payload_bytes,omitempty"`
	// Files are the files PrepareResponse.Files named, in that order.
	Files []File `json:"files,omitempty"`
	// HookServer, for Claude Code's SessionStart only, says why the
	// user's mcp_tool hooks will not be answered (ctxhook's MCP server
	// missing, broken, or refusing them), in one sentence for the user;
	// empty when they will be or there are none. The plugin puts it
	// where the user, not the model, sees it.
	HookServer string `json:"hook_server,omitempty"`
}

// HandleResponse is the decision: the exact bytes for the harness, and the
// effects the host must apply.
type HandleResponse struct {
	// Stdout is written verbatim to the hook's standard output.
	Stdout string `json:"stdout"`
	// ExitCode is the hook process's exit code.
	ExitCode int `json:"exit_code"`
	// Stderr, when non-empty, is one line for the user's log.
	Stderr string `json:"stderr,omitempty"`
	// Effects are applied in order after the decision is printed.
	Effects []Effect `json:"effects"`
	// Unstored, when set, is the decision to use instead when the
	// events of this response could not be kept (neither stored nor
	// spooled): Stdout then points the model at an event it could never
	// fetch (a shaped response's pointer).
	Unstored *Unstored `json:"unstored,omitempty"`
	// Blobs (ExportHandleFD only) names, in order, the strings written to
	// the guest's standard output instead of into this JSON.
	Blobs []Blob `json:"blobs,omitempty"`
}

// Unstored is the fallback of a decision whose events could not be kept.
type Unstored struct {
	// Stdout replaces HandleResponse.Stdout.
	Stdout string `json:"stdout"`
}

// Blob is one string of a HandleResponse sent as raw bytes on the guest's
// standard output (ExportHandleFD). Field names where it belongs: "stdout",
// "unstored.stdout", or "effects.<i>." and one of "event.response",
// "event.text", "event.args", "chunk.text", "value".
type Blob struct {
	Field string `json:"field"`
	Bytes int    `json:"bytes"`
}

// Effect operations.
const (
	OpSetState   = "set_state"
	OpStoreEvent = "store_event"
	OpTally      = "tally"
	// OpStoreChunk stores a transcript chunk.
	OpStoreChunk = "store_chunk"
	// OpIndexTranscript asks the host to read what is new in a transcript
	// and send it back as a HarnessTranscript request.
	OpIndexTranscript = "index_transcript"
)

// Effect is one thing the host must do. Exactly the fields of its Op are set.
type Effect struct {
	Op string `json:"op"`
	// set_state
	Key   string `json:"key,omitempty"`
	Value string `json:"value,omitempty"`
	// store_event
	Event *Event `json:"event,omitempty"`
	// tally: add Count to the counter Name of Session.
	Session string `json:"session,omitempty"`
	Name    string `json:"name,omitempty"`
	Count   int    `json:"count,omitempty"`
	// store_chunk
	Chunk *Chunk `json:"chunk,omitempty"`
	// index_transcript (with Session): the file, its format, and whether
	// its last turn is over.
	Path   string `json:"path,omitempty"`
	Format string `json:"format,omitempty"`
	Final  bool   `json:"final,omitempty"`
	// IfDelivered marks a tally that counts something the model was
	// given (a relayed token, a nudge, a shaped response, a hint): the
	// host applies it only when its stdout reached the harness, not when
	// it answered past the deadline or used Unstored instead.
	IfDelivered bool `json:"if_delivered,omitempty"`
}

// Tally names.
const (
	TallyRelayed = "tokens_relayed"
	TallyNudges  = "nudges_fired"
	TallyCapture = "tokens_captured"
	// TallyShaped counts responses replaced for the model by head + pointer.
	TallyShaped = "responses_shaped"
	// TallyRefetch counts calls that repeated an answered call and got a hint.
	TallyRefetch = "refetch_hints"
	// TallyRefetchMade counts hinted calls that ran all the same (their
	// after-tool hook came): a re-fetch is avoided only when a hint was
	// given and no identical call followed, TallyRefetch less this.
	TallyRefetchMade = "refetch_made"
	// TallyKeptOut counts bytes shaping kept out of the model's context
	// (a shaped response's size less what the model got; through the
	// proxy, the result's JSON less the shaped result's), only when the
	// shaped answer reached the harness (through the proxy: when the
	// decision reached the proxy, which forwards it).
	TallyKeptOut = "bytes_kept_out"
	// TallyExcluded counts calls kept out of the store by the capture
	// settings (CaptureConfig).
	TallyExcluded = "capture_excluded"
)

// Event is one captured session event, already redacted by the plugin.
type Event struct {
	TimeMS    int64  `json:"ts_ms"`
	Session   string `json:"session"`
	Harness   string `json:"harness"`
	HookEvent string `json:"hook_event"`
	Category  string `json:"category"`
	Tool      string `json:"tool,omitempty"`
	Server    string `json:"server,omitempty"`
	ToolUseID string `json:"tool_use_id,omitempty"`
	Cwd       string `json:"cwd,omitempty"`
	// Args is the tool input as compact JSON, redacted.
	Args string `json:"args,omitempty"`
	// Response is the full tool response (or prompt text), redacted, and
	// cut at Config.Capture.MaxEventBytes with a visible marker.
	Response string `json:"response,omitempty"`
	// Text is the response rendered for reading and the search index (the
	// text of MCP content blocks), redacted and cut like Response; empty
	// when Response is already plain.
	Text string `json:"text,omitempty"`
	// ResponseForm, when set, says Response is left empty and stands for
	// something derived from Text: ResponseFormTextBlock.
	ResponseForm string `json:"response_form,omitempty"`
	// ResponseBytes is the size of the response before redaction and cut.
	ResponseBytes int  `json:"response_bytes"`
	Truncated     bool `json:"truncated,omitempty"`
	Redactions    int  `json:"redactions,omitempty"`
	// Key is a stable reference to the event the plugin can name before
	// the store gives it an id (shaping's pointer, re-fetch hints). Hosts
	// resolve get_event by id or by key.
	Key string `json:"key,omitempty"`
	// ContextBytes, when the plugin shaped the response, is the size of
	// what the model received instead; 0 means it received it whole.
	ContextBytes int `json:"context_bytes,omitempty"`
}

// Event categories.
const (
	CategoryMCP      = "mcp"
	CategoryFileRead = "file_read"
	CategoryFileEdit = "file_edit"
	CategoryShell    = "shell"
	CategoryWeb      = "web"
	CategorySearch   = "search"
	CategorySubagent = "subagent"
	CategoryPrompt   = "prompt"
	CategorySession  = "session"
	CategoryError    = "error"
	CategoryTool     = "tool"
)

// Config is the user's configuration as the plugin sees it. Zero values
// mean "use the default"; the plugin applies defaults, not the host.
type Config struct {
	Servers   map[string]ServerConfig `json:"servers,omitempty"`
	Capture   CaptureConfig           `json:"capture"`
	Redact    RedactConfig            `json:"redact"`
	Shaping   ShapingConfig           `json:"shaping"`
	Retention RetentionConfig         `json:"retention"`
	Resume    ResumeConfig            `json:"resume"`
}

// ResumeConfig bounds the working-state block the model gets after its
// context was compacted or its session resumed: the servers whose tokens
// ctxhook adds, the captured responses the session used most (with the
// event id to fetch each), the last searches, and how to reach the rest.
type ResumeConfig struct {
	// MaxBytes bounds the block (default DefaultResumeBytes; -1 = no block).
	MaxBytes int `json:"max_bytes,omitempty"`
}

// DefaultResumeBytes is the working-state block's default bound: about
// 400 tokens.
const DefaultResumeBytes = 1536

// RedactConfig says what is redacted beyond what is stored (always).
type RedactConfig struct {
	// Model true redacts what the model receives too, where the harness
	// lets ctxhook replace a tool's output (Claude Code's and Cursor's
	// MCP results, OpenCode's, the proxy's): an MCP result with a secret
	// in it reaches the model as its text with the secret redacted, and a
	// relayed session token as TokenPlaceholder (its next call still gets
	// the real one).
	Model bool `json:"model,omitempty"`
}

// RetentionConfig caps the store. Over a cap, events are evicted in
// RetentionOrder (the least valuable category first) and, within a
// category, oldest first; the plugin does not read it.
type RetentionConfig struct {
	// MaxEvents caps the whole store (default DefaultMaxEvents; -1 = none).
	MaxEvents int `json:"max_events,omitempty"`
	// MaxSessionEvents caps one session (default DefaultMaxSessionEvents;
	// -1 = none).
	MaxSessionEvents int `json:"max_session_events,omitempty"`
}

// RetentionOrder lists the event categories from first evicted to last:
// an MCP response (slow, costly, often unrepeatable) goes only when
// nothing else is left.
var RetentionOrder = []string{CategorySession, CategoryPrompt, CategorySearch, CategoryFileRead, CategoryWeb,
	CategoryTool, CategoryShell, CategorySubagent, CategoryFileEdit, CategoryError, CategoryMCP}

// ShapingConfig bounds what a large MCP response costs the model: above
// the threshold, where the harness can replace MCP output (Claude Code,
// Cursor, OpenCode, the proxy), the model gets the response's head and a
// pointer to the stored event instead of the whole body.
type ShapingConfig struct {
	// ThresholdBytes: responses larger than this are shaped (default
	// DefaultShapeThreshold; -1 turns shaping off).
	ThresholdBytes int `json:"threshold_bytes,omitempty"`
	// HeadBytes is how much of the response's text the model still gets
	// (default DefaultShapeHead).
	HeadBytes int `json:"head_bytes,omitempty"`
}

// ServerConfig configures the token relay for one MCP server.
type ServerConfig struct {
	// Relay turns capture and injection on for this server.
	Relay bool `json:"relay"`
	// TokenArg is the argument the token is injected as (default "session_token").
	TokenArg string `json:"token_arg,omitempty"`
	// StartTools are tools that begin a session and never get a token
	// (default ["start_session"]).
	StartTools []string `json:"start_tools,omitempty"`
	// SkipArgs: when the caller passed any of these, nothing is injected
	// (default ["checkpoint_handle"]).
	SkipArgs []string `json:"skip_args,omitempty"`
	// CapturePaths are tried in order (default DefaultCapturePaths).
	CapturePaths []string `json:"capture_paths,omitempty"`
	// Proxy says the server runs behind `ctxhook proxy`: the proxy relays
	// and records its calls, and hooks leave them alone (no double record).
	Proxy bool `json:"proxy,omitempty"`
	// MetaKey, when set, makes the proxy also put the token in the
	// request's params._meta under this key.
	MetaKey string `json:"meta_key,omitempty"`
	// ShapeBytes overrides Shaping.ThresholdBytes for this server (-1:
	// never shape its responses).
	ShapeBytes int `json:"shape_bytes,omitempty"`
	// Capture false stores none of this server's calls (CaptureConfig
	// says what they leave); its token is relayed all the same.
	Capture *bool `json:"capture,omitempty"`
	// OnResume says what a resume (or a new server process) does to the
	// token ctxhook holds: OnResumeKeep (the default) keeps it,
	// unconfirmed, for a server whose signed tokens outlive its process;
	// OnResumeDrop drops it, for one that holds sessions in memory.
	OnResume string `json:"on_resume,omitempty"`
	// TokenErrors are regular expressions (RE2, matched without regard to
	// case) of the error text that says a call's token was rejected: a
	// call that carried the relayed token and failed with such an error
	// retires the token. Default: the token argument's name and
	// DefaultTokenErrors.
	TokenErrors []string `json:"token_errors,omitempty"`
}

// What a resume does to a held token (ServerConfig.OnResume).
const (
	OnResumeKeep = "keep"
	OnResumeDrop = "drop"
)

// DefaultTokenErrors, with the token argument's name, recognise the
// error of a call rejected for its token: an invalid, expired or unknown
// session (or one not found).
var DefaultTokenErrors = []string{
	`\b(invalid|expired|unknown|stale|revoked)\b[^\n]{0,40}\b(session|token)`,
	`\bsession\b[^\n]{0,40}\b(invalid|expired|unknown|not found|no longer valid|has ended)\b`,
}

// CaptureConfig bounds what is stored, and says what is not stored at all.
// An excluded call still gets its token relayed; what it leaves in the
// store is a row without args or response (Excluded "metadata", the
// default: its time, tool, server and size, for stats) or nothing
// ("nothing"). Transcripts hold tool results, so while anything is
// excluded no transcript turn is stored.
type CaptureConfig struct {
	// MaxEventBytes caps one event's response (default
	// DefaultMaxEventBytes, as much as a hook may read; -1 = no cap). A
	// cut response is marked (Event.Truncated) and reported where it is
	// read.
	MaxEventBytes int `json:"max_event_bytes,omitempty"`
	// Enabled false stores nothing (nil: capture on). CTXHOOK_CAPTURE=0 in
	// a hook's environment does the same for that shell or session.
	Enabled *bool `json:"enabled,omitempty"`
	// ExcludeTools are patterns (path.Match: *, ?, [...]) of tool names as
	// stored, "mcp__vault__*" for every tool of the vault server.
	ExcludeTools []string `json:"exclude_tools,omitempty"`
	// ExcludeCategories are event categories never stored: "shell",
	// "file_read", "web" and the rest (Category*).
	ExcludeCategories []string `json:"exclude_categories,omitempty"`
	// Excluded is what an excluded call leaves: "metadata" (the default)
	// or "nothing".
	Excluded string `json:"excluded,omitempty"`
}

// What an excluded call leaves (CaptureConfig.Excluded).
const (
	ExcludedMetadata = "metadata"
	ExcludedNothing  = "nothing"
)

// Defaults.
const (
	DefaultTokenArg      = "session_token"
	DefaultStartTool     = "start_session"
	DefaultSkipArg       = "checkpoint_handle"
	DefaultMaxEventBytes = 128 << 20
	// DefaultMaxEvents and DefaultMaxSessionEvents cap the store.
	DefaultMaxEvents        = 200000
	DefaultMaxSessionEvents = 20000
	DefaultNudgeEvery       = 10
	DefaultShapeThreshold   = 8 << 10
	DefaultShapeHead        = 1 << 10
	EnvNudgeEvery           = "CTXHOOK_NUDGE_EVERY"
	// EnvCapture "0" (or "false", "off", "no") stores nothing for the
	// hooks that see it: one shell, one session.
	EnvCapture = "CTXHOOK_CAPTURE"
)

// DefaultCapturePaths are where a session token is looked for in a tool
// result, in order. See ABI.md, "Capture paths", for the syntax.
var DefaultCapturePaths = []string{
	"_meta.session_token",
	"structuredContent.session_token",
	"content.*.text.@json.session_token",
}

// EventKey names an event from the facts that make it unique, before the
// store gives it an id: "e" and 16 hex digits of FNV-1a over the parts,
// each ended by a NUL. The plugin keys what it records with it, and a
// host that points at an event it has not been told of (the proxy's own
// shaping of a late result) computes the same key.
func EventKey(parts ...string) string {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	const hex = "0123456789abcdef"
	v := h.Sum64()
	b := []byte("e0000000000000000")
	for i := 16; i >= 1; i-- {
		b[i] = hex[v&15]
		v >>= 4
	}
	return string(b)
}
