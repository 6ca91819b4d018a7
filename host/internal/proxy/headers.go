package proxy

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// MCP revision 2026-07-28 mirrors parts of each HTTP request's body into
// headers (SEP-2243), so that gateways can route without reading the
// body, and a server must refuse a request whose headers and body
// disagree: Mcp-Method (every request and notification), Mcp-Name (the
// tool, prompt or resource of tools/call, prompts/get, resources/read),
// and one Mcp-Param-<Name> per tools/call argument whose property in the
// tool's inputSchema carries "x-mcp-header": "<Name>". The proxy writes
// them from the body it sends, after the plugin's change: an injected
// token that a server mirrors gets its header too. The annotations come
// from the tools/list results the proxy passes on.

// modernVersion is the first revision with mirrored headers.
const modernVersion = "2026-07-28"

// metaProtocolVersion is where a 2026-07-28 request names its revision
// (there is no initialize to negotiate one).
const metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"

// headerBinding is one x-mcp-header annotation: the argument's property
// path and the header's name (after Mcp-Param-).
type headerBinding struct {
	path   []string
	header string
}

// toolHeaders holds the annotations of each tool, from tools/list.
type toolHeaders struct {
	mu    sync.Mutex
	tools map[string][]headerBinding
}

// learn records the annotations of the tools in a server message that is
// a tools/list result; any other message leaves them as they are. Each
// tool and each schema is read apart, with exact key names: one odd
// schema (a boolean one, a property of an unexpected type) costs only
// the annotations it holds.
func (t *toolHeaders) learn(msg []byte) {
	// A tools/list result is small; a big message is a tool's result
	// that mentions "tools", not worth decoding.
	if len(msg) > 16<<20 || !bytes.Contains(msg, []byte(`"tools"`)) {
		return
	}
	result := field(field(msg, "result"), "tools")
	var tools []json.RawMessage
	if json.Unmarshal(result, &tools) != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tools == nil {
		t.tools = map[string][]headerBinding{}
	}
	for _, tool := range tools {
		var name string
		if json.Unmarshal(field(tool, "name"), &name) == nil && name != "" {
			t.tools[name] = bindings(field(tool, "inputSchema"), nil, nil)
		}
	}
}

// field is the value of key in a JSON object (exact match), or nil.
func field(obj json.RawMessage, key string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(obj, &m) != nil {
		return nil
	}
	return m[key]
}

// bindings lists the annotated properties of a schema, nested ones too.
func bindings(schema json.RawMessage, prefix []string, out []headerBinding) []headerBinding {
	var props map[string]json.RawMessage
	if json.Unmarshal(field(schema, "properties"), &props) != nil {
		return out
	}
	for name, p := range props {
		path := append(append([]string(nil), prefix...), name)
		var header string
		if json.Unmarshal(field(p, "x-mcp-header"), &header) == nil && validHeaderName(header) {
			out = append(out, headerBinding{path, header})
		}
		out = bindings(p, path, out)
	}
	return out
}

// validHeaderName: an HTTP field-name token (RFC 9110's tchar).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 {
			continue
		}
		return false
	}
	return true
}

// mirror sets the mirrored headers of one outgoing message, and returns
// the revision the message names in its _meta ("" when none). version is
// the revision the connection uses (an initialize's, or the last one a
// request named): a notification names none. Before 2026-07-28 nothing is
// mirrored. Each field is read apart, with exact key names, so that an
// odd field elsewhere in the message does not cost the rest its headers.
func (t *toolHeaders) mirror(h http.Header, version string, body []byte) (own string) {
	if version < modernVersion && !bytes.Contains(body, []byte(metaProtocolVersion)) {
		return "" // an older revision's message: nothing to read (it may be 64 MiB)
	}
	var method string
	if json.Unmarshal(field(body, "method"), &method) != nil || method == "" {
		return "" // a response, a batch, or not JSON: nothing to mirror
	}
	if method == "initialize" {
		// The 2025 handshake, a fallback from 2026-07-28 included: it
		// names its revision in its params, and carries no header.
		h.Del("MCP-Protocol-Version")
		return ""
	}
	params := field(body, "params")
	if json.Unmarshal(field(field(params, "_meta"), metaProtocolVersion), &own) != nil || !isRevision(own) {
		own = ""
	}
	if own != "" {
		version = own
		h.Set("MCP-Protocol-Version", own)
	}
	if method == "server/discover" {
		// A probe: a server without the revision answers it with an
		// error, and the client falls back to initialize. Not remembered.
		defer func() { own = "" }()
	}
	if version < modernVersion {
		return own
	}
	h.Set("Mcp-Method", headerValue(method))
	var name string
	switch method {
	case "tools/call", "prompts/get":
		json.Unmarshal(field(params, "name"), &name)
	case "resources/read":
		json.Unmarshal(field(params, "uri"), &name)
	}
	if name != "" {
		h.Set("Mcp-Name", headerValue(name))
	}
	if method != "tools/call" || name == "" {
		return own
	}
	var args map[string]json.RawMessage
	json.Unmarshal(field(params, "arguments"), &args)
	t.mu.Lock()
	bs := t.tools[name]
	t.mu.Unlock()
	for _, b := range bs {
		if v, ok := argument(args, b.path); ok && len(v) <= maxParamHeader {
			h.Set("Mcp-Param-"+b.header, v)
		}
	}
	return own
}

// maxParamHeader bounds an Mcp-Param value: a longer one is left out, as
// the revision asks (servers and gateways refuse huge headers).
const maxParamHeader = 8192

// known reports whether the annotations of tool are known (it was in a
// tools/list result).
func (t *toolHeaders) known(tool string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.tools[tool]
	return ok
}

// argument is the header value of the argument at path: a string, a
// boolean or a safe integer; anything else (absent, null, an object, a
// fraction) has no header.
func argument(args map[string]json.RawMessage, path []string) (string, bool) {
	raw, ok := args[path[0]]
	for _, p := range path[1:] {
		if !ok {
			break
		}
		raw = field(raw, p)
		ok = raw != nil
	}
	if !ok {
		return "", false
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	switch v := v.(type) {
	case string:
		return headerValue(v), true
	case bool:
		return strconv.FormatBool(v), true
	case float64:
		if v != math.Trunc(v) || math.Abs(v) > 1<<53-1 {
			return "", false
		}
		return strconv.FormatInt(int64(v), 10), true
	}
	return "", false
}

// isRevision: s names an MCP revision (YYYY-MM-DD), and so is safe as a
// header value.
func isRevision(s string) bool {
	if len(s) != 10 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if (i == 4 || i == 7) != (s[i] == '-') || s[i] != '-' && (s[i] < '0' || s[i] > '9') {
			return false
		}
	}
	return true
}

// headerValue is s as a header value: as it is when it is printable ASCII
// without surrounding blanks, else Base64 between =?base64? and ?= (also
// when s itself looks so wrapped, which would otherwise be misread).
func headerValue(s string) string {
	plain := s == "" || s[0] != ' ' && s[0] != '\t' && s[len(s)-1] != ' ' && s[len(s)-1] != '\t'
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] <= 0x7e
	}
	if plain && !(strings.HasPrefix(s, "=?base64?") && strings.HasSuffix(s, "?=")) {
		return s
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}
