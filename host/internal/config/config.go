// Package config reads ctxhook's config.toml into the plugin's abi.Config.
//
// The host only parses; defaults and every decision stay in the plugin. A
// missing file is an empty config (the relay is opt-in per server). Unknown
// keys are an error that names them, so a typo such as "rellay = true" is
// reported instead of silently doing nothing.
//
//	[capture]
//	max_event_bytes = 4194304      # per-event cap; -1 = none
//
//	[retention]
//	max_events = 200000            # the whole store; over it, least valuable categories go first, oldest first; -1 = none
//	max_session_events = 20000     # one session
//
//	[shaping]
//	threshold_bytes = 8192         # larger MCP responses reach the model as head + pointer; -1 = off
//	head_bytes = 1024              # how much of the text the model still gets
//
//	[servers.workflow-server]
//	relay = true
//	token_arg = "session_token"    # default
//	start_tools = ["start_session"]
//	skip_args = ["checkpoint_handle"]
//	capture_paths = ["_meta.session_token", "structuredContent.session_token", "content.*.text.@json.session_token"]
//	proxy = true                   # runs behind `ctxhook proxy` (set by install --wrap-mcp)
//	meta_key = "session_token"     # proxy: also send the token in params._meta
//	headers = { Authorization = "Bearer ${JIRA_TOKEN}" }   # proxy --url: HTTP headers, ${VAR} from the environment
//	shape_bytes = 32768            # this server's shaping threshold; -1 = never shape it
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

type file struct {
	Capture struct {
		MaxEventBytes int `toml:"max_event_bytes"`
	} `toml:"capture"`
	Shaping struct {
		ThresholdBytes int `toml:"threshold_bytes"`
		HeadBytes      int `toml:"head_bytes"`
	} `toml:"shaping"`
	Retention struct {
		MaxEvents        int `toml:"max_events"`
		MaxSessionEvents int `toml:"max_session_events"`
	} `toml:"retention"`
	Servers map[string]struct {
		Relay        bool              `toml:"relay"`
		TokenArg     string            `toml:"token_arg"`
		StartTools   []string          `toml:"start_tools"`
		SkipArgs     []string          `toml:"skip_args"`
		CapturePaths []string          `toml:"capture_paths"`
		Proxy        bool              `toml:"proxy"`
		MetaKey      string            `toml:"meta_key"`
		Headers      map[string]string `toml:"headers"`
		ShapeBytes   int               `toml:"shape_bytes"`
	} `toml:"servers"`
}

// Load reads the config at path. A missing file is not an error.
func Load(path string) (abi.Config, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return abi.Config{}, nil
	}
	if err != nil {
		return abi.Config{}, fmt.Errorf("config: %w", err)
	}
	return Parse(string(b))
}

// Parse parses config text.
func Parse(text string) (abi.Config, error) {
	var f file
	md, err := toml.Decode(text, &f)
	if err != nil {
		return abi.Config{}, fmt.Errorf("config: %w", err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		sort.Strings(keys)
		return abi.Config{}, fmt.Errorf("config: unknown keys: %s", strings.Join(keys, ", "))
	}
	cfg := abi.Config{Capture: abi.CaptureConfig{MaxEventBytes: f.Capture.MaxEventBytes},
		Shaping:   abi.ShapingConfig{ThresholdBytes: f.Shaping.ThresholdBytes, HeadBytes: f.Shaping.HeadBytes},
		Retention: abi.RetentionConfig{MaxEvents: f.Retention.MaxEvents, MaxSessionEvents: f.Retention.MaxSessionEvents}}
	if f.Retention.MaxEvents < -1 || f.Retention.MaxSessionEvents < -1 {
		return abi.Config{}, fmt.Errorf("config: retention.max_events and max_session_events must be -1 (no cap) or positive")
	}
	if f.Shaping.ThresholdBytes < -1 || f.Shaping.HeadBytes < 0 {
		return abi.Config{}, fmt.Errorf("config: shaping.threshold_bytes must be -1 (off) or positive, head_bytes positive")
	}
	if f.Capture.MaxEventBytes < -1 {
		return abi.Config{}, fmt.Errorf("config: capture.max_event_bytes must be -1 (no cap) or positive, not %d", f.Capture.MaxEventBytes)
	}
	for name, s := range f.Servers {
		if cfg.Servers == nil {
			cfg.Servers = map[string]abi.ServerConfig{}
		}
		cfg.Servers[name] = abi.ServerConfig{Relay: s.Relay, TokenArg: s.TokenArg, StartTools: s.StartTools,
			SkipArgs: s.SkipArgs, CapturePaths: s.CapturePaths, Proxy: s.Proxy, MetaKey: s.MetaKey, ShapeBytes: s.ShapeBytes}
	}
	return cfg, nil
}

// ServerHeaders returns the HTTP headers configured for a server
// ([servers.<name>] headers = {...}), with ${VAR} replaced from getenv, so
// that secrets can stay in the environment rather than in the file.
func ServerHeaders(path, name string, getenv func(string) string) (map[string]string, error) {
	out := map[string]string{} // the caller adds its --header values
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	var f file
	if _, err := toml.Decode(string(b), &f); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	for k, v := range f.Servers[name].Headers {
		out[k] = ExpandEnv(v, getenv)
	}
	return out, nil
}

// ExpandEnv replaces ${VAR} (only that form: a bare $ stays) from getenv.
func ExpandEnv(s string, getenv func(string) string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		b.WriteString(getenv(s[i+2 : i+j]))
		s = s[i+j+1:]
	}
	b.WriteString(s)
	return b.String()
}
