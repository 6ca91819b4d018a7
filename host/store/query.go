package store

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Query is a parsed user search: terms are ANDed; a quoted phrase is one
// term. Nothing the user types reaches FTS5's query syntax unquoted, so
// "NOT", "*", ":" or a stray quote can never be an error or an operator.
type Query struct {
	Terms []string
}

// ParseQuery splits a search string into terms: runs of non-space text, or
// "double-quoted phrases". An unclosed quote runs to the end.
func ParseQuery(s string) Query {
	var q Query
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case isSpace(r):
			i += size
		case r == '"':
			end := strings.IndexByte(s[i+1:], '"')
			var term string
			if end < 0 {
				term, i = s[i+1:], len(s)
			} else {
				term, i = s[i+1:i+1+end], i+2+end
			}
			if t := strings.Join(strings.FieldsFunc(term, isSpace), " "); t != "" {
				q.Terms = append(q.Terms, t)
			}
		default:
			j := i
			for j < len(s) {
				r, size := utf8.DecodeRuneInString(s[j:])
				if isSpace(r) || r == '"' {
					break
				}
				j += size
			}
			q.Terms = append(q.Terms, s[i:j])
			i = j
		}
	}
	return q
}

// isSpace separates terms. Control characters count as space: FTS5 reads a
// NUL as the end of its string, and none of them can be searched for.
func isSpace(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsControl(r) || r == utf8.RuneError
}

// Empty reports whether there is nothing to search for.
func (q Query) Empty() bool { return len(q.Terms) == 0 }

// fts returns the FTS5 MATCH expression for the word (porter) index: every
// term a quoted string, so FTS5 tokenizes it like the documents and matches
// it as a phrase.
func (q Query) fts() string { return strings.Join(q.ftsTerms(), " AND ") }

// ftsTerms are the terms of fts, one MATCH expression each.
func (q Query) ftsTerms() []string {
	parts := make([]string, 0, len(q.Terms))
	for _, t := range q.Terms {
		parts = append(parts, quote(t))
	}
	return parts
}

// trigram returns the MATCH expression for the trigram index, or "" when
// no term is long enough (trigram needs three characters).
func (q Query) trigram() string { return strings.Join(q.trigramTerms(), " AND ") }

// trigramTerms are the terms of trigram, one MATCH expression each.
func (q Query) trigramTerms() []string {
	var parts []string
	for _, t := range q.Terms {
		if utf8.RuneCountInString(t) >= 3 {
			parts = append(parts, quote(t))
		}
	}
	return parts
}

func quote(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// Check reports a query that cannot be searched for: ErrEmptyQuery or
// ErrQueryTooLong.
func (q Query) Check() error {
	if q.Empty() {
		return ErrEmptyQuery
	}
	if q.tooLong() {
		return ErrQueryTooLong
	}
	return nil
}

// tooLong reports a query past MaxQueryBytes or MaxQueryTerms.
func (q Query) tooLong() bool {
	if len(q.Terms) > MaxQueryTerms {
		return true
	}
	n := 0
	for _, t := range q.Terms {
		n += len(t) + 1
	}
	return n > MaxQueryBytes
}
