// Package config reads ctxhook's config.toml into the plugin's abi.Config.
//
// The host only parses; defaults and every decision stay in the plugin. A
// missing file is an empty config (the relay is opt-in per server). Unknown
// keys are an error that names them, so a typo such as "rellay = true" is
// reported instead of silently doing nothing.
//
//	[capture]
//	max_event_bytes = 134217728    # per-event cap (the default, 128 MiB); -1 = none
//	enabled = false                # store nothing (CTXHOOK_CAPTURE=0: for one shell or session)
//	exclude_tools = ["mcp__vault__*"]        # tools never stored (path.Match patterns of the stored name)
//	exclude_categories = ["shell", "web"]    # categories never stored
//	excluded = "metadata"          # what an excluded call leaves: "metadata" (a row without args or response) or "nothing"
//
//	[redact]
//	model = true                   # redact what the model receives too, where ctxhook may replace a result
//
//	[retention]
//	max_events = 200000            # the whole store; over it, least valuable categories go first, oldest first; -1 = none
//	max_session_events = 20000     # one session
//
//	[resume]
//	max_bytes = 1536               # the working-state block after compaction or resume; -1 = none
//
//	[store]
//	url = "postgres://alice@db.example/ctxhook"   # a shared store (or CTXHOOK_STORE_URL); the password from ~/.pgpass
//	machine = "laptop"             # this machine's name in the shared store (default: the host name)
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
//	capture = false                # store none of its calls (its token is relayed all the same)
//	on_resume = "keep"             # after a resume its token is kept, unconfirmed (signed tokens); "drop": it died with the process
//	share = "team"                 # with a shared store: its events are seen by the team (default "private")
//	token_errors = ["no such run"] # errors (regexps, any case) saying a call's token was rejected: the token is retired; default: the token_arg's name, or an invalid/expired/unknown session
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

type file struct {
	Capture struct {
		MaxEventBytes     int      `toml:"max_event_bytes"`
		Enabled           *bool    `toml:"enabled"`
		ExcludeTools      []string `toml:"exclude_tools"`
		ExcludeCategories []string `toml:"exclude_categories"`
		Excluded          string   `toml:"excluded"`
	} `toml:"capture"`
	Redact struct {
		Model bool `toml:"model"`
	} `toml:"redact"`
	Shaping struct {
		ThresholdBytes int `toml:"threshold_bytes"`
		HeadBytes      int `toml:"head_bytes"`
	} `toml:"shaping"`
	Retention struct {
		MaxEvents        int `toml:"max_events"`
		MaxSessionEvents int `toml:"max_session_events"`
	} `toml:"retention"`
	Resume struct {
		MaxBytes int `toml:"max_bytes"`
	} `toml:"resume"`
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
		Capture      *bool             `toml:"capture"`
		OnResume     string            `toml:"on_resume"`
		TokenErrors  []string          `toml:"token_errors"`
		Share        string            `toml:"share"` // store.go
	} `toml:"servers"`
	Store storeTable `toml:"store"` // store.go
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

// Parse parses config text. A file with an error still applies what is
// right in it: a table whose text does not parse, or holds a value of the
// wrong type, is left out alone (each table is parsed on its own), an
// unknown key or an out-of-range value is ignored alone. The error then
// names each problem by line, and says the rest applies.
func Parse(text string) (abi.Config, error) {
	cfg, problems, err := parse(text, 1)
	if err == nil {
		return cfg, report(problems)
	}
	cfg, problems = abi.Config{}, nil
	for _, sec := range tables(text) {
		c, p, err := parse(sec.text, sec.line)
		if err != nil {
			problems = append(problems, fmt.Sprintf("line %d: %s (that table is ignored)", errLine(err, sec.line), errText(err)))
			continue
		}
		problems = append(problems, p...)
		merge(&cfg, c)
	}
	return cfg, report(problems)
}

func report(problems []string) error {
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("config: %s; the rest applies", strings.Join(problems, "; "))
}

// parse decodes text (whose first line is line first of the file): an
// error when it cannot be decoded, else the config with each unknown key
// and bad value left out and named in problems.
func parse(text string, first int) (abi.Config, []string, error) {
	var f file
	md, err := toml.Decode(text, &f)
	if err != nil {
		return abi.Config{}, nil, err
	}
	var problems []string
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		sort.Strings(keys)
		problems = append(problems, "unknown keys ignored: "+strings.Join(keys, ", "))
	}
	bad := func(p *int, min int, what string) {
		if *p < min {
			problems = append(problems, fmt.Sprintf("%s = %d ignored: %s", what, *p, map[int]string{
				-1: "it must be -1 (none) or positive", 0: "it must be positive"}[min]))
			*p = 0
		}
	}
	bad(&f.Retention.MaxEvents, -1, "retention.max_events")
	bad(&f.Retention.MaxSessionEvents, -1, "retention.max_session_events")
	bad(&f.Shaping.ThresholdBytes, -1, "shaping.threshold_bytes")
	bad(&f.Shaping.HeadBytes, 0, "shaping.head_bytes")
	bad(&f.Capture.MaxEventBytes, -1, "capture.max_event_bytes")
	bad(&f.Resume.MaxBytes, -1, "resume.max_bytes")
	problems = append(problems, storeProblems(&f)...)
	if e := f.Capture.Excluded; e != "" && e != abi.ExcludedMetadata && e != abi.ExcludedNothing {
		problems = append(problems, fmt.Sprintf("capture.excluded = %q ignored: it must be %q or %q", e, abi.ExcludedMetadata, abi.ExcludedNothing))
		f.Capture.Excluded = ""
	}
	for _, c := range f.Capture.ExcludeCategories {
		// abi.RetentionOrder lists every category (retention ranks them all).
		if !slices.Contains(abi.RetentionOrder, c) {
			problems = append(problems, fmt.Sprintf("capture.exclude_categories: %q is no category (%s)", c, strings.Join(abi.RetentionOrder, ", ")))
		}
	}
	for _, pat := range f.Capture.ExcludeTools {
		if _, err := path.Match(pat, ""); err != nil {
			problems = append(problems, fmt.Sprintf("capture.exclude_tools: %q is not a pattern (%v); it excludes nothing", pat, err))
		}
	}
	cfg := abi.Config{Capture: abi.CaptureConfig{MaxEventBytes: f.Capture.MaxEventBytes, Enabled: f.Capture.Enabled,
		ExcludeTools: f.Capture.ExcludeTools, ExcludeCategories: f.Capture.ExcludeCategories, Excluded: f.Capture.Excluded},
		Redact:    abi.RedactConfig{Model: f.Redact.Model},
		Shaping:   abi.ShapingConfig{ThresholdBytes: f.Shaping.ThresholdBytes, HeadBytes: f.Shaping.HeadBytes},
		Retention: abi.RetentionConfig{MaxEvents: f.Retention.MaxEvents, MaxSessionEvents: f.Retention.MaxSessionEvents},
		Resume:    abi.ResumeConfig{MaxBytes: f.Resume.MaxBytes}}
	for name, s := range f.Servers {
		if cfg.Servers == nil {
			cfg.Servers = map[string]abi.ServerConfig{}
		}
		if o := s.OnResume; o != "" && o != abi.OnResumeKeep && o != abi.OnResumeDrop {
			problems = append(problems, fmt.Sprintf("servers.%s.on_resume = %q ignored: it must be %q or %q", name, o, abi.OnResumeKeep, abi.OnResumeDrop))
			s.OnResume = ""
		}
		for _, p := range s.TokenErrors {
			if _, err := regexp.Compile("(?i)" + p); err != nil {
				problems = append(problems, fmt.Sprintf("servers.%s.token_errors: %q is not a regular expression (%v); it matches nothing", name, p, err))
			}
		}
		cfg.Servers[name] = abi.ServerConfig{Relay: s.Relay, TokenArg: s.TokenArg, StartTools: s.StartTools,
			SkipArgs: s.SkipArgs, CapturePaths: s.CapturePaths, Proxy: s.Proxy, MetaKey: s.MetaKey, ShapeBytes: s.ShapeBytes, Capture: s.Capture,
			OnResume: s.OnResume, TokenErrors: s.TokenErrors}
	}
	return cfg, problems, nil
}

type table struct {
	line int // of its first line in the file
	text string
}

// tables cuts TOML text at each table header ("[name]", "[[name]]"): the
// keys before the first one, then each table with its keys. A header
// inside a multi-line string would cut wrongly; ctxhook's config has none.
func tables(text string) []table {
	var out []table
	cur := table{line: 1}
	for i, line := range strings.SplitAfter(text, "\n") {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "[") && cur.text != "" {
			out = append(out, cur)
			cur = table{line: i + 1}
		}
		cur.text += line
	}
	return append(out, cur)
}

// merge adds what c sets to cfg: c is one table's config, whose unset
// fields are zero (the plugin's defaults).
func merge(cfg *abi.Config, c abi.Config) {
	set := func(dst *int, v int) {
		if v != 0 {
			*dst = v
		}
	}
	set(&cfg.Capture.MaxEventBytes, c.Capture.MaxEventBytes)
	cfg.Redact.Model = cfg.Redact.Model || c.Redact.Model
	if c.Capture.Enabled != nil {
		cfg.Capture.Enabled = c.Capture.Enabled
	}
	cfg.Capture.ExcludeTools = append(cfg.Capture.ExcludeTools, c.Capture.ExcludeTools...)
	cfg.Capture.ExcludeCategories = append(cfg.Capture.ExcludeCategories, c.Capture.ExcludeCategories...)
	if c.Capture.Excluded != "" {
		cfg.Capture.Excluded = c.Capture.Excluded
	}
	set(&cfg.Shaping.ThresholdBytes, c.Shaping.ThresholdBytes)
	set(&cfg.Shaping.HeadBytes, c.Shaping.HeadBytes)
	set(&cfg.Retention.MaxEvents, c.Retention.MaxEvents)
	set(&cfg.Retention.MaxSessionEvents, c.Retention.MaxSessionEvents)
	set(&cfg.Resume.MaxBytes, c.Resume.MaxBytes)
	for name, s := range c.Servers {
		if cfg.Servers == nil {
			cfg.Servers = map[string]abi.ServerConfig{}
		}
		old, ok := cfg.Servers[name]
		if !ok {
			cfg.Servers[name] = s
			continue
		}
		// The same server in two tables ([servers.x] and [servers.x.headers]).
		old.Relay = old.Relay || s.Relay
		old.Proxy = old.Proxy || s.Proxy
		if s.TokenArg != "" {
			old.TokenArg = s.TokenArg
		}
		if s.MetaKey != "" {
			old.MetaKey = s.MetaKey
		}
		old.StartTools = append(old.StartTools, s.StartTools...)
		old.SkipArgs = append(old.SkipArgs, s.SkipArgs...)
		old.CapturePaths = append(old.CapturePaths, s.CapturePaths...)
		set(&old.ShapeBytes, s.ShapeBytes)
		if s.Capture != nil {
			old.Capture = s.Capture
		}
		if s.OnResume != "" {
			old.OnResume = s.OnResume
		}
		old.TokenErrors = append(old.TokenErrors, s.TokenErrors...)
		cfg.Servers[name] = old
	}
}

// errLine is the file line of a decode error in a table starting at first.
func errLine(err error, first int) int {
	var pe toml.ParseError
	if errors.As(err, &pe) && pe.Position.Line > 0 {
		return first + pe.Position.Line - 1
	}
	if m := tomlLine.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return first + n - 1
	}
	return first
}

// tomlLine finds the table-relative line a type error names.
var tomlLine = regexp.MustCompile(`^toml: line (\d+) `)

func errText(err error) string {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return pe.Message
	}
	return tomlLine.ReplaceAllString(err.Error(), "")
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
