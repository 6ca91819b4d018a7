package threatmodel

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Kind is a kind of entry point the coverage test derives from the code.
type Kind string

// The kinds, each named in a row as Entry.Name is (see Names).
const (
	EnvVar     Kind = "variable"    // `CTXHOOK_HOME`
	ConfigKey  Kind = "config key"  // `[store] url`
	Command    Kind = "command"     // `ctxhook store init`, `ctxhook proxy --url`
	SQL        Kind = "SQL"         // `ctxhook_search.words`, `GRANT … ON … TO …`
	JSExport   Kind = "JS export"   // `@ctxhook/core Host`
	HookScript Kind = "hook script" // `hooks: cline`
)

// Entry is one entry point found in the code.
type Entry struct {
	Kind Kind
	Name string
	At   string // where the code defines it (file, or file:line)
}

// Source is one file's name and text.
type Source struct {
	Name string
	Text []byte
}

var envName = regexp.MustCompile(`^CTXHOOK_[A-Z0-9_]*[A-Z0-9_]`)

// GoEnvVars lists the CTXHOOK_* names in the string literals of Go
// files: every variable the code reads, or sets for a process it starts
// (a literal such as "CTXHOOK_NO_DAEMON=1"). A name ending in "_" is a
// family the code completes at run time (CTXHOOK_OWN_<n>_TOKEN).
func GoEnvVars(files []Source) ([]Entry, error) {
	var out []Entry
	for _, f := range files {
		fset := token.NewFileSet()
		af, err := parser.ParseFile(fset, f.Name, f.Text, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		ast.Inspect(af, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			if m := envName.FindString(s); m != "" && m != "CTXHOOK_" {
				out = append(out, Entry{EnvVar, m, fset.Position(lit.Pos()).String()})
			}
			return true
		})
	}
	return dedup(out), nil
}

var jsEnv = regexp.MustCompile(`CTXHOOK_[A-Z0-9_]*[A-Z0-9]`)

// JSEnvVars lists the CTXHOOK_* names a JavaScript file's code (not its
// comments) mentions.
func JSEnvVars(files []Source) []Entry {
	var out []Entry
	for _, f := range files {
		for i, line := range strings.Split(string(f.Text), "\n") {
			code := jsCode(line)
			for _, m := range jsEnv.FindAllString(code, -1) {
				out = append(out, Entry{EnvVar, m, f.Name + ":" + strconv.Itoa(i+1)})
			}
		}
	}
	return dedup(out)
}

// jsCode is a line without a comment: a line that starts one (JSDoc's
// "*" too), or what follows "//" outside a string. Good enough for the
// adapters' own style; a variable named only in a comment is not read.
func jsCode(line string) string {
	t := strings.TrimSpace(line)
	if strings.HasPrefix(t, "//") || strings.HasPrefix(t, "*") || strings.HasPrefix(t, "/*") {
		return ""
	}
	quote := byte(0)
	for i := 0; i+1 < len(line); i++ {
		switch c := line[i]; {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\'' || c == '`'):
			quote = c
		case quote == 0 && c == '/' && line[i+1] == '/':
			return line[:i]
		}
	}
	return line
}

var jsExport = regexp.MustCompile(`(?m)^export\s+(?:(default)\b|(?:async\s+)?(?:function\*?|const|let|var|class)\s+([A-Za-z_$][\w$]*)|\{([^}]*)\})`)

// JSExports lists what an adapter's module exports, as "<module> <name>"
// ("default" for a default export).
func JSExports(module string, f Source) []Entry {
	var out []Entry
	for _, m := range jsExport.FindAllStringSubmatch(string(f.Text), -1) {
		names := []string{m[1] + m[2]}
		if m[3] != "" {
			names = nil
			for _, n := range strings.Split(m[3], ",") {
				if fields := strings.Fields(n); len(fields) > 0 {
					names = append(names, fields[len(fields)-1]) // "a as b" exports b
				}
			}
		}
		for _, n := range names {
			out = append(out, Entry{JSExport, module + " " + n, f.Name})
		}
	}
	return dedup(out)
}

// HookScripts lists the harnesses for which `ctxhook install` writes
// something the harness runs (hook entries, hook scripts, a loader or an
// extension), from harness-configs/harnesses.json.
func HookScripts(harnessesJSON []byte) ([]Entry, error) {
	var hs []struct{ Name, Kind string }
	if err := json.Unmarshal(harnessesJSON, &hs); err != nil {
		return nil, err
	}
	var out []Entry
	for _, h := range hs {
		switch h.Kind {
		case "hook-file", "hook-script", "loader", "extension":
			out = append(out, Entry{HookScript, "hooks: " + h.Name, "harnesses.json (" + h.Kind + ")"})
		}
	}
	return out, nil
}

var (
	sqlFunction = regexp.MustCompile(`(?i)\bCREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+([a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*)\s*\(`)
	sqlGrant    = regexp.MustCompile(`(?is)\bGRANT\s+(.+?)\s+TO(?:\s+([a-z_][a-z0-9_]*)|\s*$)`)
)

// SQLEntries lists the functions the schema creates and every grant, one
// per object and grantee, from the string literals of Go files. A grant's
// name is "GRANT <privileges> ON [<kind> ]<object> TO <role>" (public.
// dropped, spaces collapsed), or "GRANT <role> TO <role>"; a grantee the
// code appends at run time is "<user>".
func SQLEntries(files []Source) ([]Entry, error) {
	var out []Entry
	for _, f := range files {
		lits, err := stringLits(f)
		if err != nil {
			return nil, err
		}
		for _, s := range lits {
			for _, m := range sqlFunction.FindAllStringSubmatch(s, -1) {
				out = append(out, Entry{SQL, m[1], f.Name})
			}
			for _, m := range sqlGrant.FindAllStringSubmatch(s, -1) {
				for _, g := range grants(m[1], m[2]) {
					out = append(out, Entry{SQL, g, f.Name})
				}
			}
		}
	}
	return dedup(out), nil
}

// grants splits one GRANT's objects: "SELECT ON a, b" gives one name each.
func grants(what, to string) []string {
	what = strings.Join(strings.Fields(what), " ")
	if to == "" {
		to = "<user>"
	}
	privs, objs, ok := strings.Cut(what, " ON ")
	if !ok {
		return []string{"GRANT " + what + " TO " + to}
	}
	kind := ""
	for _, k := range []string{"FUNCTION ", "SEQUENCE ", "SCHEMA ", "TABLE "} {
		if strings.HasPrefix(objs, k) {
			kind, objs = k, strings.TrimPrefix(objs, k)
		}
	}
	var out []string
	for _, o := range splitTop(objs) {
		o = strings.TrimPrefix(strings.TrimSpace(o), "public.")
		out = append(out, "GRANT "+privs+" ON "+kind+o+" TO "+to)
	}
	return out
}

// splitTop splits s at commas outside parentheses.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out, start = append(out, s[start:i]), i+1
			}
		}
	}
	return append(out, s[start:])
}

// stringLits is every string literal of a Go file, unquoted.
func stringLits(f Source) ([]string, error) {
	af, err := parser.ParseFile(token.NewFileSet(), f.Name, f.Text, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []string
	ast.Inspect(af, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil {
				out = append(out, s)
			}
		}
		return true
	})
	return out, nil
}

// dedup keeps the first Entry of each kind and name, sorted by name.
func dedup(es []Entry) []Entry {
	seen := map[string]bool{}
	var out []Entry
	for _, e := range es {
		if k := string(e.Kind) + "\x00" + e.Name; !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
