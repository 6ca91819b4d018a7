package redact

import "strings"

// codeAssigned reports whether the value w[a:z] after a password or secret
// key is code rather than a secret: in source code `password = None`,
// `pwd = os.getcwd()`, `secret: creds.password` or `password=$DB_PASS`
// assign an expression, and redacting it hides nothing while it breaks
// what the agent reads and searches. Only an unquoted value can be code:
// a quoted one is a literal, which may well be the password itself. The
// rule's own window bounds the value, so this reads a few dozen bytes.
func codeAssigned(w string, a, z int) bool {
	if a <= 0 || a >= z || z > len(w) {
		return false
	}
	if q := w[a-1]; q == '"' || q == '\'' {
		return false
	}
	if z < len(w) && (w[z] == '[' || w[z] == '(') {
		return true // indexed or called: auth[2], creds(...)
	}
	v := strings.TrimRight(w[a:z], ")};:")
	switch strings.ToLower(v) {
	case "none", "null", "nil", "true", "false", "undefined", "nothing", "empty",
		"await", "new", "yield", "lambda", "function", "self", "this", "not", "typeof":
		return true
	}
	if v == "" {
		return true
	}
	switch v[0] {
	case '$', '{', '<', '%': // $VAR, ${VAR}, {{ .Password }}, <password>, %(password)s
		return true
	}
	if i := strings.IndexByte(v, '('); i > 0 && identPath(v[:i]) {
		return true // a call: os.getcwd(), getpass.getpass(prompt
	}
	return identPath(v) && strings.IndexByte(v, '.') > 0
}

// identPath: identifiers joined by dots (creds.password, self.cfg.pwd),
// each starting with a letter or '_' and at most 32 bytes.
func identPath(v string) bool {
	if v == "" {
		return false
	}
	for _, part := range strings.Split(v, ".") {
		if part == "" || len(part) > 32 || !isLetter(part[0]) && part[0] != '_' {
			return false
		}
		for i := 1; i < len(part); i++ {
			if !isAlnum(part[i]) && part[i] != '_' {
				return false
			}
		}
	}
	return true
}
