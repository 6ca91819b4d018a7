// Package jsonpath finds values in decoded JSON with the small path syntax
// of ABI.md ("Capture paths"): dot-separated object keys, "*" for every
// element of an array (or value of an object), and "@json" to decode a
// string that itself holds JSON.
//
// It is deliberately tiny: capture paths come from user config, and a full
// JSONPath engine would grow plugin.wasm for no decision it makes.
package jsonpath

import (
	"strings"
	"unsafe"

	"github.com/ctxhook/ctxhook/plugin/internal/jsonfast"
)

// FirstString returns the first non-empty string the path reaches in v,
// walking arrays in order. ok is false when the path reaches none.
func FirstString(v any, path string) (s string, ok bool) {
	return FirstStringIn(&jsonfast.Expander{}, v, path)
}

// FirstStringIn is FirstString on a value that may hold jsonfast.Raw
// members: they are expanded by e as the path reaches them, so a path
// into a large document decodes only what it walks through.
func FirstStringIn(e *jsonfast.Expander, v any, path string) (s string, ok bool) {
	if path == "" {
		return "", false
	}
	return walk(e, v, strings.Split(path, "."))
}

func walk(e *jsonfast.Expander, v any, segs []string) (string, bool) {
	v, ok := e.Value(v)
	if !ok {
		return "", false
	}
	if len(segs) == 0 {
		s, ok := v.(string)
		return s, ok && s != ""
	}
	seg, rest := segs[0], segs[1:]
	switch seg {
	case "*":
		switch t := v.(type) {
		case []any:
			for _, el := range t {
				if s, ok := walk(e, el, rest); ok {
					return s, true
				}
			}
		case map[string]any:
			for _, k := range sortedKeys(t) {
				if s, ok := walk(e, t[k], rest); ok {
					return s, true
				}
			}
		}
		return "", false
	case "@json":
		str, ok := v.(string)
		if !ok {
			return "", false
		}
		str = strings.TrimSpace(str)
		if len(str) == 0 || (str[0] != '{' && str[0] != '[') {
			return "", false
		}
		// A key the path names next must be written in the document, as
		// is or with an escape: a 10 MiB document without it is not
		// parsed at all.
		if len(rest) > 0 && plainName(rest[0]) &&
			!strings.Contains(str, `"`+rest[0]+`"`) && !strings.Contains(str, `\u`) {
			return "", false
		}
		// The string's own bytes, unescaped already: expanded lazily like
		// the rest (a large text block holding a document is read for one
		// key, not decoded whole).
		return walk(e, jsonfast.Raw(unsafe.Slice(unsafe.StringData(str), len(str))), rest)
	default:
		m, ok := v.(map[string]any)
		if !ok {
			return "", false
		}
		child, ok := m[seg]
		if !ok {
			return "", false
		}
		return walk(e, child, rest)
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// insertion sort: maps here are small, and sort.Strings would pull in
	// nothing new but keeps the guest's import list honest either way.
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// plainName reports whether a key can be written in JSON only as itself
// or with \u escapes (letters, digits, '_' and '-').
func plainName(k string) bool {
	if k == "" || k == "*" || k == "@json" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
