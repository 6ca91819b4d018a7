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
		{"a variable named by fmt.Sprintf", func(r *Release) {
			addGo(r, "host/internal/engine", "package engine\nimport (\"fmt\"; \"os\")\nfunc f(n string) string { return os.Getenv(fmt.Sprintf(\"CTXHOOK_%s\", n)) }\n")
		}},
		{"a variable named by strings.ToUpper", func(r *Release) {
			addGo(r, "host/internal/engine", "package engine\nimport (\"os\"; \"strings\")\nfunc f(n string) string { return os.Getenv(strings.ToUpper(\"ctxhook_\" + n)) }\n")
		}},
		{"os.Environ scanned for a prefix", func(r *Release) {
			addGo(r, "host/internal/engine", "package engine\nimport (\"os\"; \"strings\")\nfunc f() (n int) {\n\tfor _, kv := range os.Environ() {\n\t\tif strings.HasPrefix(kv, \"CTXHOOK_\") {\n\t\t\tn++\n\t\t}\n\t}\n\treturn n\n}\n")
		}},
		{"a JS variable by template literal", func(r *Release) {
			addJS(r, "@ctxhook/core", "const v = (n) => process.env[`CTXHOOK_${n}`];\n")
		}},
		{"a JS variable by concatenation", func(r *Release) {
			addJS(r, "@ctxhook/core", "const w = (n) => process.env['CTXHOOK_' + n];\n")
		}},
		{"a JS variable on a line starting with *", func(r *Release) {
			addJS(r, "@ctxhook/core", "const z = 2\n  * Number(process.env.CTXHOOK_SCALE);\n")
		}},
		{"a JS re-export", func(r *Release) {
			addJS(r, "@ctxhook/core", "export * from \"./internal.js\";\n")
		}},
		{"an indented JS export", func(r *Release) {
			addJS(r, "@ctxhook/core", "  export function dumpEverything() {}\n")
		}},
		{"a config key in an embedded struct", func(r *Release) {
			edit(t, r, "host/internal/config", "MaxBytes int `toml:\"max_bytes\"`", "MaxBytes int `toml:\"max_bytes\"`\n\t\textraResume")
			addGo(r, "host/internal/config", "package config\ntype extraResume struct {\n\tDumpDir string `toml:\"dump_dir\"`\n}\n")
		}},
		{"a subcommand by switch sub := args[0]", func(r *Release) {
			edit(t, r, "host/internal/cli", "func runProxy(ctx context.Context, env Env, args []string) int {",
				"func runProxy(ctx context.Context, env Env, args []string) int {\n\tswitch sub := args[0]; sub {\n\tcase \"replay\":\n\t\treturn 0\n\t}")
		}},
		{"an SQL procedure", func(r *Release) {
			addGo(r, "host/store/pgstore", "package pgstore\nconst p = `CREATE PROCEDURE ctxhook_search.wipe_all() LANGUAGE sql AS $$ DELETE FROM ctxhook_docs $$;`\n")
		}},
		{"an SQL function with a quoted name", func(r *Release) {
			addGo(r, "host/store/pgstore", "package pgstore\nconst q = `CREATE FUNCTION \"ctxhook_search\".\"Dump\"(q text) RETURNS text LANGUAGE sql AS $$ SELECT q $$;`\n")
		}},
		{"an SQL function named with Sprintf", func(r *Release) {
			addGo(r, "host/store/pgstore", "package pgstore\nimport \"fmt\"\nfunc q(schema string) string { return fmt.Sprintf(`CREATE FUNCTION %s.dump(q text) RETURNS text AS $$ SELECT q $$ LANGUAGE sql;`, schema) }\n")
		}},
		{"an existing function made SECURITY DEFINER", func(r *Release) {
			addGo(r, "host/store/pgstore", "package pgstore\nconst a = `ALTER FUNCTION ctxhook_search.words(text) SECURITY DEFINER;`\n")
		}},
		{"a new policy", func(r *Release) {
			addGo(r, "host/store/pgstore", "package pgstore\nconst pol = `CREATE POLICY read_all ON ctxhook_events FOR SELECT USING (true);`\n")
		}},
		{"row-level security turned off", func(r *Release) {
			addGo(r, "host/store/pgstore", "package pgstore\nconst off = `ALTER TABLE ctxhook_events DISABLE ROW LEVEL SECURITY;`\n")
		}},
		{"SQL outside the store's package", func(r *Release) {
			addGo(r, "host/internal/cli", "package cli\nconst g = `GRANT SELECT ON ctxhook_events TO PUBLIC;`\n")
		}},
		{"a harness of a new kind", func(r *Release) {
			r.Harnesses = []byte(strings.Replace(string(r.Harnesses), "[", `[{"name":"newagent","kind":"wrapper"},`, 1))
		}},
		{"a variable read by the npm package's hook launcher", func(r *Release) {
			addJS(r, "ctxhook", "const k = process.env.CTXHOOK_LAUNCH_NEW;\n")
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

// FuzzJSStrip: stripping comments keeps every line where it was (the
// entries' line numbers stay right) and never invents a name.
func FuzzJSStrip(f *testing.F) {
	f.Add([]byte("const a = process.env.CTXHOOK_A; // CTXHOOK_B\n/* CTXHOOK_C\n * x */ `CTXHOOK_${n}` '\\'' \"//\""))
	f.Fuzz(func(t *testing.T, src []byte) {
		got := jsStrip(src)
		if len(got) != len(src) || strings.Count(got, "\n") != strings.Count(string(src), "\n") {
			t.Fatalf("jsStrip changed the layout of %q: %q", src, got)
		}
		if strings.Count(got, "CTXHOOK_") > strings.Count(string(src), "CTXHOOK_") {
			t.Fatalf("jsStrip made a name up: %q", got)
		}
	})
}

// FuzzGrantees: every grantee list gives at least one name, none empty.
func FuzzGrantees(f *testing.F) {
	f.Add(" ctxhook_users, PUBLIC WITH GRANT OPTION")
	f.Add(" ")
	f.Fuzz(func(t *testing.T, list string) {
		g := grantees(list)
		if len(g) == 0 {
			t.Fatalf("no grantee from %q", list)
		}
		for _, n := range g {
			if strings.TrimSpace(n) == "" {
				t.Fatalf("an empty grantee from %q", list)
			}
		}
	})
}
