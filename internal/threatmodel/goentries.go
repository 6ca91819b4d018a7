package threatmodel

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// pkg is one Go package's non-test files, parsed.
type pkg struct {
	fset  *token.FileSet
	files []*ast.File
	funcs map[string]*ast.FuncDecl
	types map[string]ast.Expr
	vars  map[string]ast.Expr
}

func parsePkg(files []Source) (*pkg, error) {
	p := &pkg{fset: token.NewFileSet(), funcs: map[string]*ast.FuncDecl{}, types: map[string]ast.Expr{}, vars: map[string]ast.Expr{}}
	for _, f := range files {
		af, err := parser.ParseFile(p.fset, f.Name, f.Text, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		p.files = append(p.files, af)
		for _, d := range af.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					p.funcs[d.Name.Name] = d
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						p.types[s.Name.Name] = s.Type
					case *ast.ValueSpec:
						for i, n := range s.Names {
							if i < len(s.Values) {
								p.vars[n.Name] = s.Values[i]
							}
						}
					}
				}
			}
		}
	}
	return p, nil
}

// ConfigKeys lists the keys config.toml accepts, from the package's
// struct type `file` (host/internal/config): each field's toml tag, a
// table per struct field, "X" for the name of a map's entry, as
// "[table] key". Nothing else decodes the file, and unknown keys are
// errors, so these are all the keys there are.
func ConfigKeys(files []Source) ([]Entry, error) {
	p, err := parsePkg(files)
	if err != nil {
		return nil, err
	}
	root, ok := p.types["file"].(*ast.StructType)
	if !ok {
		return nil, fmt.Errorf("threatmodel: no struct type file in the config package")
	}
	var out []Entry
	var walk func(table string, st *ast.StructType, depth int)
	walk = func(table string, st *ast.StructType, depth int) {
		for _, f := range st.Fields.List {
			if len(f.Names) == 0 { // embedded: its fields are this table's
				if s, ok := p.resolve(unstar(f.Type)).(*ast.StructType); ok && tomlName(f, "") == "" {
					walk(table, s, depth)
					continue
				}
			}
			for _, id := range f.Names {
				if !id.IsExported() {
					continue
				}
				name := tomlName(f, id.Name)
				if name == "-" {
					continue
				}
				t := f.Type
				if m, ok := t.(*ast.MapType); ok && depth == 0 {
					if _, isStruct := p.resolve(m.Value).(*ast.StructType); isStruct {
						name, t = name+".X", m.Value
					}
				}
				if s, ok := p.resolve(unstar(t)).(*ast.StructType); ok && depth == 0 {
					walk(name, s, depth+1)
					continue
				}
				out = append(out, Entry{ConfigKey, "[" + table + "] " + name, p.fset.Position(f.Pos()).String()})
			}
		}
	}
	walk("", root, 0)
	return dedup(out), nil
}

func (p *pkg) resolve(t ast.Expr) ast.Expr {
	if id, ok := t.(*ast.Ident); ok && p.types[id.Name] != nil {
		return p.types[id.Name]
	}
	return t
}

// tomlName is the key the TOML decoder gives a field: its toml tag's
// name, else the field's own name (BurntSushi/toml matches it, case
// folded), "-" for a field it skips.
func tomlName(f *ast.Field, field string) string {
	if f.Tag != nil {
		tag, _ := strconv.Unquote(f.Tag.Value)
		if name, _, _ := strings.Cut(reflect.StructTag(tag).Get("toml"), ","); name != "" {
			return name
		}
	}
	return field
}

func unstar(t ast.Expr) ast.Expr {
	if s, ok := t.(*ast.StarExpr); ok {
		return s.X
	}
	return t
}

// flagMethods are flag.FlagSet's definers; the name is the first argument,
// or the second for the ...Var forms.
var flagMethods = map[string]int{
	"Bool": 0, "String": 0, "Int": 0, "Int64": 0, "Uint": 0, "Uint64": 0, "Float64": 0, "Duration": 0, "Func": 0, "BoolFunc": 0,
	"Var": 1, "BoolVar": 1, "StringVar": 1, "IntVar": 1, "Int64Var": 1, "UintVar": 1, "Uint64Var": 1, "Float64Var": 1, "DurationVar": 1, "TextVar": 1,
}

// CLIEntries lists, from the CLI package (host/internal/cli): each
// command of its table (`ctxhook NAME`), each subcommand (the keys of a
// map of handlers, or the cases of a switch on args[0], that its
// handler uses: `ctxhook store init`), and each flag defined on the way
// from a handler, through the package's functions it calls, to the flag
// package (`ctxhook store init --url`). A call into another command's
// handler is not followed.
func CLIEntries(files []Source) ([]Entry, error) {
	p, err := parsePkg(files)
	if err != nil {
		return nil, err
	}
	cmds := p.commandTable()
	if len(cmds) == 0 {
		return nil, fmt.Errorf("threatmodel: no command table (var commands) in the CLI package")
	}
	handlers := map[string]bool{}
	for _, c := range cmds {
		handlers[c.handler] = true
	}
	subs := map[string][]cmd{}
	for _, c := range cmds {
		subs[c.name] = p.subcommands(c.handler)
		for _, s := range subs[c.name] {
			if s.handler != "" {
				handlers[s.handler] = true
			}
		}
	}
	var out []Entry
	for _, c := range cmds {
		name := "ctxhook " + c.name
		out = append(out, Entry{Command, name, c.at})
		for _, s := range subs[c.name] {
			out = append(out, Entry{Command, name + " " + s.name, c.at})
			for _, f := range p.flags(s.handler, handlers) {
				out = append(out, Entry{Command, name + " " + s.name + " --" + f, c.at})
			}
		}
		for _, f := range p.flags(c.handler, handlers) {
			out = append(out, Entry{Command, name + " --" + f, c.at})
		}
	}
	return dedup(out), nil
}

type cmd struct{ name, handler, at string }

// commandTable reads `commands = []command{{group, name, args, summary, run}, ...}`.
func (p *pkg) commandTable() []cmd {
	var out []cmd
	for _, f := range p.files {
		ast.Inspect(f, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
				return true
			}
			if id, ok := as.Lhs[0].(*ast.Ident); !ok || id.Name != "commands" {
				return true
			}
			lit, ok := as.Rhs[0].(*ast.CompositeLit)
			if !ok {
				return true
			}
			for _, e := range lit.Elts {
				c, ok := e.(*ast.CompositeLit)
				if !ok || len(c.Elts) < 2 {
					continue
				}
				name := strLit(c.Elts[1])
				run, _ := c.Elts[len(c.Elts)-1].(*ast.Ident)
				if name != "" && run != nil {
					out = append(out, cmd{name, run.Name, p.fset.Position(c.Pos()).String()})
				}
			}
			return false
		})
	}
	return out
}

// subcommands of a handler: keys of a package-level map of handlers it
// names, and string cases of its switch on args[0].
func (p *pkg) subcommands(handler string) []cmd {
	fn := p.funcs[handler]
	if fn == nil {
		return nil
	}
	// Names bound to args[0] (sub := args[0]) stand for it.
	first := map[string]bool{"args[0]": true}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) {
			for i, r := range as.Rhs {
				if id, ok := as.Lhs[i].(*ast.Ident); ok && exprString(r) == "args[0]" {
					first[id.Name] = true
				}
			}
		}
		return true
	})
	var out []cmd
	word := func(s string) {
		if s != "" && !strings.HasPrefix(s, "-") && s != "help" {
			out = append(out, cmd{name: s})
		}
	}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			// if args[0] == "x" (or "x" == sub)
			if n.Op == token.EQL {
				if first[exprString(n.X)] {
					word(strLit(n.Y))
				} else if first[exprString(n.Y)] {
					word(strLit(n.X))
				}
			}
		case *ast.Ident:
			if m, ok := p.vars[n.Name].(*ast.CompositeLit); ok {
				if _, isMap := m.Type.(*ast.MapType); isMap {
					for _, e := range m.Elts {
						kv, ok := e.(*ast.KeyValueExpr)
						if !ok {
							continue
						}
						h, _ := kv.Value.(*ast.Ident)
						if k := strLit(kv.Key); k != "" && h != nil {
							out = append(out, cmd{name: k, handler: h.Name})
						}
					}
				}
			}
		case *ast.SwitchStmt:
			if n.Tag != nil && first[exprString(n.Tag)] {
				for _, c := range n.Body.List {
					for _, e := range c.(*ast.CaseClause).List {
						word(strLit(e))
					}
				}
			}
		}
		return true
	})
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// flags defined in handler and the package functions it calls, not
// entering other handlers.
func (p *pkg) flags(handler string, handlers map[string]bool) []string {
	var out []string
	seen := map[string]bool{}
	var visit func(name string)
	visit = func(name string) {
		fn := p.funcs[name]
		if fn == nil || seen[name] {
			return
		}
		seen[name] = true
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			switch f := call.Fun.(type) {
			case *ast.Ident:
				if !handlers[f.Name] {
					visit(f.Name)
				}
			case *ast.SelectorExpr:
				if i, ok := flagMethods[f.Sel.Name]; ok && i < len(call.Args) {
					if s := strLit(call.Args[i]); s != "" {
						out = append(out, s)
					}
				}
			}
			return true
		})
	}
	if handler != "" {
		visit(handler)
	}
	return out
}

func strLit(e ast.Expr) string {
	if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
		s, _ := strconv.Unquote(lit.Value)
		return s
	}
	return ""
}

func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.IndexExpr:
		return exprString(e.X) + "[" + exprString(e.Index) + "]"
	case *ast.BasicLit:
		return e.Value
	}
	return ""
}
