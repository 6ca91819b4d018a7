// Package version is ctxhook's one version number, shared by the Go
// binaries and the npm packages (adapters/*/package.json carry the same;
// a test holds them together), and the commit a binary was built from.
package version

import "runtime/debug"

// Number is the release this tree will be, in semantic versioning.
const Number = "0.1.0"

// commit is set by release builds (make dist: -ldflags -X), which leave
// out the build's VCS stamp so that their bytes depend on the source alone.
var commit string

// Commit is the VCS revision the running binary was built from, with
// "-dirty" when the tree had changes, or "unknown" (a build without VCS
// information, such as `go run` or -buildvcs=false).
func Commit() string {
	if commit != "" {
		return commit
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "unknown"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}
