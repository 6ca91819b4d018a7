package threatmodel

import (
	"bytes"
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
			switch n := n.(type) {
			case *ast.BinaryExpr:
				// "CTXHOOK_" + "NAME": the name the constants make.
				if s, ok := foldString(n); ok {
					if m := envName.FindString(s); m != "" && m != "CTXHOOK_" {
						out = append(out, Entry{EnvVar, m, fset.Position(n.Pos()).String()})
					}
				}
			case *ast.CallExpr:
				// A reader given a name built at run time: reported, so
				// that a row must say which names it can read.
				if name := envReader(n); name != "" && len(n.Args) > 0 {
					if _, ok := foldString(n.Args[0]); !ok && builtFromPrefix(n.Args[0]) {
						out = append(out, Entry{EnvVar, "CTXHOOK_<built at " + fset.Position(n.Pos()).String() + ">", fset.Position(n.Pos()).String()})
					}
				}
			case *ast.BasicLit:
				if n.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(n.Value)
				if err != nil {
					return true
				}
				if m := envName.FindString(s); m != "" && m != "CTXHOOK_" {
					out = append(out, Entry{EnvVar, m, fset.Position(n.Pos()).String()})
				}
			}
			return true
		})
	}
	return dedup(out), nil
}

// envReader names the environment reader a call is (os.Getenv,
// os.LookupEnv, syscall.Getenv, or an injected getenv), or "".
func envReader(c *ast.CallExpr) string {
	switch f := c.Fun.(type) {
	case *ast.SelectorExpr:
		switch f.Sel.Name {
		case "Getenv", "LookupEnv":
			return f.Sel.Name
		}
	case *ast.Ident:
		if strings.EqualFold(f.Name, "getenv") {
			return f.Name
		}
	}
	return ""
}

// foldString is the value of a string expression made of literals and
// +, when it is constant.
func foldString(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.STRING {
			s, err := strconv.Unquote(e.Value)
			return s, err == nil
		}
	case *ast.ParenExpr:
		return foldString(e.X)
	case *ast.BinaryExpr:
		if e.Op == token.ADD {
			a, ok1 := foldString(e.X)
			b, ok2 := foldString(e.Y)
			return a + b, ok1 && ok2
		}
	}
	return "", false
}

// builtFromPrefix reports an expression that builds a name from a
// "CTXHOOK_" literal at run time: a concatenation, fmt.Sprintf or
// strings.ToUpper and the like around one.
func builtFromPrefix(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && strings.Contains(strings.ToUpper(lit.Value), "CTXHOOK_") {
			found = true
		}
		return !found
	})
	return found
}

// environScans lists the places that read os.Environ() and compare its
// entries with a "CTXHOOK_" prefix: every variable such a scan takes is
// read without its name in the code.
func environScans(files []Source) ([]Entry, error) {
	var out []Entry
	for _, f := range files {
		if !bytes.Contains(f.Text, []byte("Environ()")) || !bytes.Contains(f.Text, []byte(`"CTXHOOK_"`)) {
			continue
		}
		fset := token.NewFileSet()
		af, err := parser.ParseFile(fset, f.Name, f.Text, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range af.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			environ, prefix := false, token.NoPos
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SelectorExpr:
					environ = environ || n.Sel.Name == "Environ"
				case *ast.CallExpr:
					if sel, ok := n.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "HasPrefix" || sel.Sel.Name == "CutPrefix") && len(n.Args) == 2 {
						if s, ok := foldString(n.Args[1]); ok && s == "CTXHOOK_" {
							prefix = n.Pos()
						}
					}
				}
				return true
			})
			if environ && prefix.IsValid() {
				at := fset.Position(prefix).String()
				out = append(out, Entry{EnvVar, "CTXHOOK_<scan of os.Environ in " + fn.Name.Name + ">", at})
			}
		}
	}
	return out, nil
}

var (
	jsEnv = regexp.MustCompile(`CTXHOOK_[A-Z0-9_]*[A-Z0-9]`)
	// A name completed at run time: `CTXHOOK_${x}` or "CTXHOOK_" + x.
	jsEnvBuilt = regexp.MustCompile("CTXHOOK_[A-Z0-9_]*(?:\\$\\{|[\"'`]\\s*\\+)")
)

// JSEnvVars lists the CTXHOOK_* names a JavaScript file's code (not its
// comments) mentions, and each name it builds at run time.
func JSEnvVars(files []Source) []Entry {
	var out []Entry
	for _, f := range files {
		for i, code := range strings.Split(jsStrip(f.Text), "\n") {
			at := f.Name + ":" + strconv.Itoa(i+1)
			for _, m := range jsEnv.FindAllString(code, -1) {
				out = append(out, Entry{EnvVar, m, at})
			}
			if jsEnvBuilt.MatchString(code) {
				out = append(out, Entry{EnvVar, "CTXHOOK_<built at " + at + ">", at})
			}
		}
	}
	return dedup(out)
}

// jsStrip is a JavaScript file's text with its comments (// to the end
// of the line, /* ... */ across lines) blanked outside strings and
// template literals, newlines kept: a name only a comment mentions is not
// read, and a line of code that starts with "*" is still code.
func jsStrip(src []byte) string {
	b := []byte(string(src))
	quote := byte(0)
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case quote != 0 && c == '\\':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			for ; i < len(b) && !(b[i] == '*' && i+1 < len(b) && b[i+1] == '/'); i++ {
				if b[i] != '\n' {
					b[i] = ' '
				}
			}
			if i+1 < len(b) {
				b[i], b[i+1] = ' ', ' '
				i++
			}
		}
	}
	return string(b)
}

var (
	jsExport = regexp.MustCompile(`(?m)^[ \t]*export\s+(?:(default)\b|(?:async\s+)?(?:function\s*\*?|const|let|var|class)\s*([A-Za-z_$][\w$]*)|\{([^}]*)\}|(\*)(?:\s+as\s+([A-Za-z_$][\w$]*))?\s+from)`)
	// CommonJS: module.exports.x =, exports.x =, module.exports = { a, b } or = x.
	cjsExport    = regexp.MustCompile(`(?m)^[ \t]*(?:module\.)?exports(?:\.([A-Za-z_$][\w$]*)|\[\s*["']([^"']+)["']\s*\])\s*=`)
	cjsExportAll = regexp.MustCompile(`(?m)^[ \t]*module\.exports\s*=\s*(\{[^}]*\}|[A-Za-z_$][\w$]*)`)
)

// JSExports lists what an adapter's module exports, as "<module> <name>"
// ("default" for a default export).
func JSExports(module string, f Source) []Entry {
	var out []Entry
	for _, m := range jsExport.FindAllStringSubmatch(string(f.Text), -1) {
		names := []string{m[1] + m[2]}
		if m[4] != "" { // export * from "x": everything x exports
			names = []string{"*"}
			if m[5] != "" {
				names = []string{m[5]}
			}
		}
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
	for _, m := range cjsExport.FindAllStringSubmatch(string(f.Text), -1) {
		out = append(out, Entry{JSExport, module + " " + m[1] + m[2], f.Name})
	}
	for _, m := range cjsExportAll.FindAllStringSubmatch(string(f.Text), -1) {
		if !strings.HasPrefix(m[1], "{") {
			out = append(out, Entry{JSExport, module + " default", f.Name})
			continue
		}
		for _, n := range strings.Split(strings.Trim(m[1], "{}"), ",") {
			key, _, _ := strings.Cut(n, ":")
			if key = strings.TrimSpace(key); key != "" {
				out = append(out, Entry{JSExport, module + " " + key, f.Name})
			}
		}
	}
	return dedup(out)
}

// HookScripts lists the harnesses for which `ctxhook install` writes
// something the harness runs (hook entries, hook scripts, a loader or an
// extension, or a kind not known to write nothing), from
// harness-configs/harnesses.json.
func HookScripts(harnessesJSON []byte) ([]Entry, error) {
	var hs []struct{ Name, Kind string }
	if err := json.Unmarshal(harnessesJSON, &hs); err != nil {
		return nil, err
	}
	var out []Entry
	for _, h := range hs {
		switch h.Kind {
		case "proxy-only", "library":
			// install writes nothing the harness runs: MCP entries through
			// ctxhook proxy, or a library the user's code imports.
		default: // hook-file, hook-script, loader, extension, and any new kind
			out = append(out, Entry{HookScript, "hooks: " + h.Name, "harnesses.json (" + h.Kind + ")"})
		}
	}
	return out, nil
}

// sqlIdent is a name, schema-qualified or not, quoted or not.
// A part built with fmt (%s, %[1]s) counts as a name too.
const sqlIdent = `((?:"[^"]+"|[a-z_%][a-z0-9_$%\[\]]*)(?:\s*\.\s*(?:"[^"]+"|[a-z_%][a-z0-9_$%\[\]]*))?)`

var (
	sqlFunction = regexp.MustCompile(`(?i)\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:FUNCTION|PROCEDURE)\s+` + sqlIdent + `\s*\(`)
	// Statements that change who may do what without creating a function.
	sqlAlter = []*regexp.Regexp{
		regexp.MustCompile(`(?is)\bALTER\s+(?:FUNCTION|PROCEDURE|ROUTINE)\s+` + sqlIdent + `[^;]*?\bSECURITY\s+DEFINER`),
		regexp.MustCompile(`(?is)\bCREATE\s+POLICY\s+` + sqlIdent + `\s+ON\s+` + sqlIdent),
		regexp.MustCompile(`(?is)\bALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:ONLY\s+)?` + sqlIdent + `\s+(?:DISABLE|NO\s+FORCE)\s+ROW\s+LEVEL\s+SECURITY`),
		regexp.MustCompile(`(?is)\bALTER\s+DEFAULT\s+PRIVILEGES\b[^;]*`),
	}
	// GRANT ... TO <grantees> [WITH GRANT OPTION | WITH ADMIN OPTION]: the
	// whole grantee list, to the statement's end.
	sqlGrant = regexp.MustCompile(`(?is)\bGRANT\s+(.+?)\s+TO\b([^;]*)`)
)

// sqlIdentName is an identifier as a row names it: unquoted, spaces removed.
func sqlIdentName(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(strings.Join(strings.Fields(s), ""), `"`, ""), "public.", "")
}

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
				out = append(out, Entry{SQL, sqlIdentName(m[1]), f.Name})
			}
			for _, re := range sqlAlter {
				for _, m := range re.FindAllString(s, -1) {
					name := strings.ReplaceAll(strings.ReplaceAll(strings.Join(strings.Fields(m), " "), `"`, ""), "public.", "")
					out = append(out, Entry{SQL, name, f.Name})
				}
			}
			for _, m := range sqlGrant.FindAllStringSubmatch(s, -1) {
				for _, to := range grantees(m[2]) {
					for _, g := range grants(m[1], to) {
						out = append(out, Entry{SQL, g, f.Name})
					}
				}
			}
		}
	}
	return dedup(out), nil
}

// asciiUpper upper-cases the ASCII letters of s and nothing else.
func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// grantees splits a grant's "TO" list: each role, with " WITH GRANT
// OPTION" (or ADMIN) kept on every one, since it widens each; an empty
// list is one the code appends at run time ("").
func grantees(list string) []string {
	list = strings.Join(strings.Fields(list), " ")
	with := ""
	// An ASCII upper-case copy keeps every byte where it was, so its
	// offsets hold in list (strings.ToUpper turns invalid UTF-8 into
	// three-byte replacement characters).
	upper := asciiUpper(list)
	if i := strings.Index(upper, " WITH "); i >= 0 || strings.HasPrefix(upper, "WITH ") {
		if i < 0 {
			i = 0
		}
		with, list = " "+strings.TrimSpace(list[i:]), list[:i]
	}
	var out []string
	for _, g := range strings.Split(list, ",") {
		if g = strings.TrimSpace(g); g != "" || len(out) == 0 {
			if g == "" {
				g = "<user>"
			}
			n := sqlIdentName(g)
			if n == "" { // quotes alone: keep what was written
				n = g
			}
			out = append(out, n+with)
		}
	}
	return out
}

// grants splits one GRANT's objects: "SELECT ON a, b" gives one name each.
func grants(what, to string) []string {
	what = strings.Join(strings.Fields(what), " ")
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
