package install

import "strings"

// exeSuffix ends an executable's file name.
const exeSuffix = ".exe"

// ShellQuote quotes a path in double quotes when it needs quoting: what
// cmd.exe and the Git Bash Claude Code runs hooks in on Windows both take
// (a backslash before anything but a quote, $, ` or \ stays itself in
// bash's double quotes, and Windows paths hold none of those).
func ShellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t&()[]{}^=;!'+,`~\"%$") {
		return s
	}
	return `"` + s + `"`
}
