package threatmodel

import (
	"path/filepath"
	"strings"
	"testing"
)

func root() string { return filepath.Join(filepath.Dir(Path()), "..") }

// TestEveryEntryPointHasARow: every entry point the release code defines
// (CTXHOOK_* variables its Go or JavaScript reads or sets, config keys,
// commands, subcommands and flags, SQL functions and grants, the JS
// adapters' exports, the harnesses install writes hooks for) is named by
// a row of docs/threats.md, and TestEveryRowIsProved holds every row to
// a test that exists.
func TestEveryEntryPointHasARow(t *testing.T) {
	rows, err := Read(Path())
	if err != nil {
		t.Fatal(err)
	}
	r, err := LoadRelease(root())
	if err != nil {
		t.Fatal(err)
	}
	entries, err := r.Entries()
	if err != nil {
		t.Fatal(err)
	}
	per := map[Kind]int{}
	for _, e := range entries {
		per[e.Kind]++
	}
	t.Logf("entry points derived from the code: %v", per)
	for _, k := range []Kind{EnvVar, ConfigKey, Command, SQL, JSExport, HookScript} {
		if per[k] == 0 {
			t.Errorf("no %s derived: the derivation is broken", k)
		}
	}
	for _, e := range Missing(rows, entries) {
		t.Errorf("%s %q (%s) has no row in docs/threats.md", e.Kind, e.Name, e.At)
	}
}

// TestNewEntryPointNeedsARow: the real sources with one addition each,
// checked against the real rows: the new entry point, and only it, is
// reported missing.
func TestNewEntryPointNeedsARow(t *testing.T) {
	rows, err := Read(Path())
	if err != nil {
		t.Fatal(err)
	}
	base, err := LoadRelease(root())
	if err != nil {
		t.Fatal(err)
	}
	before := missingNames(t, rows, base)
	for _, tt := range []struct {
		name   string
		change func(r *Release)
		want   []string
	}{
		{"a Go getenv", func(r *Release) {
			addGo(r, "host/internal/engine", "package engine\nimport \"os\"\nfunc newKnob() string { return os.Getenv(\"CTXHOOK_NEW\") }\n")
		}, []string{"CTXHOOK_NEW"}},
		{"a variable set for a child", func(r *Release) {
			addGo(r, "host/internal/daemon", "package daemon\nvar childEnv = []string{\"CTXHOOK_CHILD_NEW=1\"}\n")
		}, []string{"CTXHOOK_CHILD_NEW"}},
		{"a JS variable", func(r *Release) {
			addJS(r, "@ctxhook/core", "const x = process.env.CTXHOOK_JS_NEW; // CTXHOOK_IN_COMMENT\n// CTXHOOK_ONLY_COMMENT\n")
		}, []string{"CTXHOOK_JS_NEW"}},
		{"a config key", func(r *Release) {
			edit(t, r, "host/internal/config", "Model bool `toml:\"model\"`", "Model bool `toml:\"model\"`\n\t\tNewKey int `toml:\"new_key\"`")
		}, []string{"[redact] new_key"}},
		{"a server key", func(r *Release) {
			edit(t, r, "host/internal/config", "Share        string            `toml:\"share\"`", "Share string `toml:\"share\"`\n\t\tDump bool `toml:\"dump\"`")
		}, []string{"[servers.X] dump"}},
		{"a command with a flag", func(r *Release) {
			edit(t, r, "host/internal/cli", `{groupInternal, "io",`, `{groupInternal, "wipe", "", "", runWipe}, {groupInternal, "io",`)
			addGo(r, "host/internal/cli", "package cli\nimport \"context\"\nfunc runWipe(ctx context.Context, env Env, args []string) int {\n\tf := newFlags(env, \"wipe\", \"\", \"\")\n\tf.Bool(\"everything\", false, \"\")\n\treturn 0\n}\n")
		}, []string{"ctxhook wipe", "ctxhook wipe --everything"}},
		{"a store subcommand", func(r *Release) {
			edit(t, r, "host/internal/cli", `"init": storeInit,`, `"init": storeInit, "drop": storeDrop,`)
			addGo(r, "host/internal/cli", "package cli\nimport \"context\"\nfunc storeDrop(ctx context.Context, env Env, args []string) int {\n\tvar s string\n\tf := newFlags(env, \"store\", \"drop\", \"\")\n\tf.StringVar(&s, \"table\", \"\", \"\")\n\treturn 0\n}\n")
		}, []string{"ctxhook store drop", "ctxhook store drop --table"}},
		{"an io subcommand", func(r *Release) {
			edit(t, r, "host/internal/cli", `case "socket":`, `case "socket", "dump":`)
		}, []string{"ctxhook io dump"}},
		{"a flag on a command", func(r *Release) {
			edit(t, r, "host/internal/cli", `url := flags.String("url", "",`, `flags.Bool("insecure", false, "")
	url := flags.String("url", "",`)
		}, []string{"ctxhook proxy --insecure"}},
		{"an SQL function and its grant", func(r *Release) {
			addGo(r, "host/store/pgstore", "package pgstore\nconst dump = `CREATE OR REPLACE FUNCTION ctxhook_search.dump(q text) RETURNS text AS $$ SELECT q $$ LANGUAGE sql;\n\tGRANT EXECUTE ON FUNCTION ctxhook_search.dump(text) TO ctxhook_users;`\n")
		}, []string{"ctxhook_search.dump", "GRANT EXECUTE ON FUNCTION ctxhook_search.dump(text) TO ctxhook_users"}},
		{"a wider grant", func(r *Release) {
			edit(t, r, "host/store/pgstore", "GRANT SELECT, INSERT, DELETE ON ctxhook_events, ctxhook_docs TO ctxhook_users;",
				"GRANT SELECT, INSERT, UPDATE, DELETE ON ctxhook_events, ctxhook_docs TO ctxhook_users;")
		}, []string{"GRANT SELECT, INSERT, UPDATE, DELETE ON ctxhook_docs TO ctxhook_users", "GRANT SELECT, INSERT, UPDATE, DELETE ON ctxhook_events TO ctxhook_users"}},
		{"a JS export", func(r *Release) {
			addJS(r, "@ctxhook/opencode", "export async function dumpState() {}\nexport { a as exposed, b };\n")
		}, []string{"@ctxhook/opencode b", "@ctxhook/opencode dumpState", "@ctxhook/opencode exposed"}},
		{"a harness with hook scripts", func(r *Release) {
			r.Harnesses = []byte(strings.Replace(string(r.Harnesses), "[", `[{"name":"newagent","kind":"hook-script"},`, 1))
		}, []string{"hooks: newagent"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := clone(base)
			tt.change(r)
			after := missingNames(t, rows, r)
			var got []string
			for n := range after {
				if !before[n] {
					got = append(got, n)
				}
			}
			if strings.Join(sorted(got), "|") != strings.Join(sorted(tt.want), "|") {
				t.Fatalf("newly missing %q, want %q", sorted(got), tt.want)
			}
		})
	}
}

func missingNames(t *testing.T, rows []Row, r *Release) map[string]bool {
	t.Helper()
	es, err := r.Entries()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, e := range Missing(rows, es) {
		out[e.Name] = true
	}
	return out
}

func clone(r *Release) *Release {
	c := &Release{Go: map[string][]Source{}, JS: map[string][]Source{}, JSOther: r.JSOther, Harnesses: r.Harnesses}
	for k, v := range r.Go {
		c.Go[k] = append([]Source(nil), v...)
	}
	for k, v := range r.JS {
		c.JS[k] = append([]Source(nil), v...)
	}
	return c
}

func addGo(r *Release, dir, src string) {
	r.Go[dir] = append(r.Go[dir], Source{dir + "/zz_new.go", []byte(src)})
}

func addJS(r *Release, module, src string) {
	fs := r.JS[module]
	last := fs[len(fs)-1]
	fs[len(fs)-1] = Source{last.Name, append(append([]byte(nil), last.Text...), "\n"+src...)}
}

// edit replaces old, which must be in exactly one file of dir.
func edit(t *testing.T, r *Release, dir, old, new string) {
	t.Helper()
	n := 0
	for i, f := range r.Go[dir] {
		if c := strings.Count(string(f.Text), old); c > 0 {
			n += c
			r.Go[dir][i] = Source{f.Name, []byte(strings.Replace(string(f.Text), old, new, 1))}
		}
	}
	if n != 1 {
		t.Fatalf("%q is in %s %d times, want once", old, dir, n)
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestNames(t *testing.T) {
	for _, tt := range []struct{ cell, want string }{
		{"`ctxhook proxy --url`, `--header`", "ctxhook proxy|ctxhook proxy --url|ctxhook proxy --header"},
		{"`ctxhook store init --url`, `ctxhook store ship`", "ctxhook store init|ctxhook store init --url|ctxhook store ship"},
		{"`ctxhook io load`, `apply`, `--x`", "ctxhook io load|ctxhook io apply|ctxhook io apply --x"},
		{"`ctxhook hook cline <Event>`", "ctxhook hook cline <Event>"},
		{"`[store] url`, `machine`; `[servers.X] share`", "[store] url|[store] machine|[servers.X] share"},
		{"`[retention]` caps", "[retention]"},
		{"search functions `ctxhook_search.words` and `.substrings`", "ctxhook_search.words|ctxhook_search.substrings"},
		{"`@ctxhook/core Host`, `loadPlugin`, `CTXHOOK_BIN`, `x`", "@ctxhook/core Host|@ctxhook/core loadPlugin|CTXHOOK_BIN|x"},
		{"`hooks: cline`, `pi`", "hooks: cline|hooks: pi"},
		{"tool `search`", "search"},
		{"`GRANT SELECT ON ctxhook_schema   TO ctxhook_users`", "GRANT SELECT ON ctxhook_schema TO ctxhook_users"},
	} {
		if got := strings.Join(Names(tt.cell), "|"); got != tt.want {
			t.Errorf("Names(%q) = %q, want %q", tt.cell, got, tt.want)
		}
	}
}

func FuzzNames(f *testing.F) {
	f.Add("`ctxhook proxy --url`, `--header`; `[store] url`, `machine`, `.x`")
	f.Fuzz(func(t *testing.T, cell string) {
		for _, n := range Names(cell) {
			if n == "" {
				t.Fatalf("an empty name from %q", cell)
			}
		}
	})
}
