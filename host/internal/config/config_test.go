package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/internal/testdir"
	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	got, err := Parse(`
[capture]
max_event_bytes = 1024
[servers.workflow-server]
relay = true
start_tools = ["begin"]
[servers.jira]
relay = false
proxy = true
meta_key = "tok"
`)
	if err != nil {
		t.Fatal(err)
	}
	want := abi.Config{Capture: abi.CaptureConfig{MaxEventBytes: 1024}, Servers: map[string]abi.ServerConfig{
		"workflow-server": {Relay: true, StartTools: []string{"begin"}},
		"jira":            {Proxy: true, MetaKey: "tok"},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

func TestErrors(t *testing.T) {
	for name, text := range map[string]string{
		"typo":       "[servers.x]\nrellay = true\n",
		"bad toml":   "[servers.x\n",
		"wrong type": "[servers.x]\nrelay = \"yes\"\n",
		"bad cap":    "[capture]\nmax_event_bytes = -5\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse(text)
			if err == nil || !strings.HasPrefix(err.Error(), "config: ") {
				t.Fatalf("err = %v", err)
			}
		})
	}
	if _, err := Parse("[servers.x]\nrellay = true\n"); !strings.Contains(err.Error(), "servers.x.rellay") {
		t.Errorf("typo error does not name the key: %v", err)
	}
}

func TestMissingFileIsEmpty(t *testing.T) {
	cfg, err := Load(filepath.Join(testdir.New(t), "nope.toml"))
	if err != nil || cfg.Servers != nil {
		t.Fatalf("Load = %+v, %v", cfg, err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("[servers.a]\nrelay = true\n")
	f.Add("[capture]\nmax_event_bytes = 1\n")
	f.Fuzz(func(t *testing.T, text string) {
		// What is applied, with or without an error, is never out of range.
		cfg, _ := Parse(text)
		if cfg.Capture.MaxEventBytes < -1 || cfg.Shaping.ThresholdBytes < -1 || cfg.Shaping.HeadBytes < 0 ||
			cfg.Retention.MaxEvents < -1 || cfg.Retention.MaxSessionEvents < -1 {
			t.Fatalf("applied an out-of-range value: %+v", cfg)
		}
	})
}

func TestServerHeaders(t *testing.T) {
	path := filepath.Join(testdir.New(t), "config.toml")
	os.WriteFile(path, []byte("[servers.jira]\nproxy = true\nheaders = { Authorization = \"Bearer ${JIRA_TOKEN}\", X-Plain = \"a$b\" }\n"), 0o600)
	if _, err := Load(path); err != nil {
		t.Fatalf("headers rejected by Load: %v", err)
	}
	h, err := ServerHeaders(path, "jira", func(k string) string { return map[string]string{"JIRA_TOKEN": "s3cr3t"}[k] })
	if err != nil || h["Authorization"] != "Bearer s3cr3t" || h["X-Plain"] != "a$b" {
		t.Fatalf("headers = %v, %v", h, err)
	}
}

// TestPartial: a file with an error still applies what is right in it,
// and the error names each problem by its line.
func TestPartial(t *testing.T) {
	text := `[shaping]
threshold_bytes = 4096

[servers.good]
relay = true

[servers.broken
relay = true

[servers.typed]
relay = "yes"

[servers.typo]
relay = true
rellay = true

[retention]
max_events = -5
max_session_events = 300
`
	cfg, err := Parse(text)
	if err == nil {
		t.Fatal("no error for a file with four problems")
	}
	for _, want := range []string{"line 8:", "line 11:", "servers.typo.rellay", "retention.max_events = -5 ignored", "the rest applies"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if cfg.Shaping.ThresholdBytes != 4096 || !cfg.Servers["good"].Relay || !cfg.Servers["typo"].Relay || cfg.Retention.MaxSessionEvents != 300 {
		t.Errorf("the valid parts were not applied: %+v", cfg)
	}
	if _, ok := cfg.Servers["typed"]; ok || cfg.Retention.MaxEvents != 0 {
		t.Errorf("the wrong parts were applied: %+v", cfg)
	}
}

// TestCaptureKeys: the capture switches reach the plugin's config, a
// server's capture too; a bad value is named and left out.
func TestCaptureKeys(t *testing.T) {
	cfg, err := Parse("[capture]\nenabled = false\nexclude_tools = [\"mcp__vault__*\"]\nexclude_categories = [\"shell\", \"web\"]\nexcluded = \"nothing\"\n\n[servers.vault]\ncapture = false\n")
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.Capture
	if c.Enabled == nil || *c.Enabled || len(c.ExcludeTools) != 1 || len(c.ExcludeCategories) != 2 || c.Excluded != "nothing" {
		t.Errorf("capture = %+v", c)
	}
	if s := cfg.Servers["vault"]; s.Capture == nil || *s.Capture {
		t.Errorf("servers.vault.capture = %v", s.Capture)
	}
	cfg, err = Parse("[capture]\nexcluded = \"some\"\nexclude_categories = [\"shel\"]\nexclude_tools = [\"[x\"]\n")
	if err == nil || !strings.Contains(err.Error(), `capture.excluded = "some" ignored`) || !strings.Contains(err.Error(), `"shel" is no category`) ||
		!strings.Contains(err.Error(), `"[x" is not a pattern`) || cfg.Capture.Excluded != "" {
		t.Errorf("bad values: %+v, %v", cfg.Capture, err)
	}
}

// TestResumeKeys: on_resume and token_errors reach the plugin's config; a
// value on_resume does not know and a pattern that does not compile are
// named, and the rest applies.
func TestResumeKeys(t *testing.T) {
	cfg, err := Parse("[servers.wf]\nrelay = true\non_resume = \"drop\"\ntoken_errors = [\"no such run\", \"(?:gone)\"]\n")
	if err != nil {
		t.Fatal(err)
	}
	if s := cfg.Servers["wf"]; s.OnResume != abi.OnResumeDrop || len(s.TokenErrors) != 2 || s.TokenErrors[0] != "no such run" {
		t.Errorf("servers.wf = %+v", s)
	}
	cfg, err = Parse("[servers.wf]\nrelay = true\non_resume = \"forget\"\ntoken_errors = [\"(unclosed\"]\nrelay_on_resume = 1\n")
	if err == nil || !strings.Contains(err.Error(), `servers.wf.on_resume = "forget" ignored`) ||
		!strings.Contains(err.Error(), `"(unclosed" is not a regular expression`) || !strings.Contains(err.Error(), "servers.wf.relay_on_resume") {
		t.Errorf("bad values: %v", err)
	}
	if s := cfg.Servers["wf"]; !s.Relay || s.OnResume != "" {
		t.Errorf("the rest did not apply as it should: %+v", s)
	}
}
