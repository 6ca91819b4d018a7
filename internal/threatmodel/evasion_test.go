package threatmodel

import (
	"strings"
	"testing"
)

// TestNewEntryPointWrittenOtherwise: entry points written in ways the
// code already uses elsewhere, or that Go, TOML and SQL accept as
// readily: each must be reported missing, as TestNewEntryPointNeedsARow's
// are.
func TestNewEntryPointWrittenOtherwise(t *testing.T) {
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
	}{
		{"a variable named by concatenation", func(r *Release) {
			addGo(r, "host/internal/engine", "package engine\nimport \"os\"\nfunc f() string { return os.Getenv(\"CTXHOOK_\" + \"PLUGIN_PATH\") }\n")
		}},
		{"a config key with no toml tag (decoded by field name)", func(r *Release) {
			edit(t, r, "host/internal/config", "Model bool `toml:\"model\"`", "Model bool `toml:\"model\"`\n\t\tDisable bool")
		}},
		{"a key in a table a row names alone", func(r *Release) {
			edit(t, r, "host/internal/config", "MaxSessionEvents int `toml:\"max_session_events\"`", "MaxSessionEvents int `toml:\"max_session_events\"`\n\t\tDumpPath string `toml:\"dump_path\"`")
		}},
		{"a subcommand by if args[0] ==", func(r *Release) {
			edit(t, r, "host/internal/cli", "func runProxy(ctx context.Context, env Env, args []string) int {",
				"func runProxy(ctx context.Context, env Env, args []string) int {\n\tif len(args) > 0 && args[0] == \"replay\" {\n\t\treturn 0\n\t}")
		}},
		{"an SQL function not schema-qualified", func(r *Release) {
			addGo(r, "host/store/pgstore", "package pgstore\nconst dumpAll = `CREATE FUNCTION dump_all(q text) RETURNS text LANGUAGE sql SECURITY DEFINER AS $$ SELECT q $$;`\n")
		}},
		{"an existing grant made re-grantable", func(r *Release) {
			edit(t, r, "host/store/pgstore", "GRANT SELECT ON ctxhook_schema TO ctxhook_users;", "GRANT SELECT ON ctxhook_schema TO ctxhook_users WITH GRANT OPTION;")
		}},
		{"an existing grant to a second role", func(r *Release) {
			edit(t, r, "host/store/pgstore", "GRANT SELECT ON ctxhook_schema TO ctxhook_users;", "GRANT SELECT ON ctxhook_schema TO ctxhook_users, PUBLIC;")
		}},
		{"a CommonJS export", func(r *Release) {
			addJS(r, "@ctxhook/core", "module.exports.dumpAll = function () {};\n")
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := clone(base)
			tt.change(r)
			var got []string
			for n := range missingNames(t, rows, r) {
				if !before[n] {
					got = append(got, n)
				}
			}
			if len(got) == 0 {
				t.Errorf("not reported: the coverage test passes with no row for it")
			} else {
				t.Logf("reported: %s", strings.Join(sorted(got), ", "))
			}
		})
	}
}
