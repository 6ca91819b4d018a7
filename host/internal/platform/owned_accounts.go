package platform

import (
	"strconv"
	"strings"
)

// The account files are read here rather than through os/user: with cgo
// available, os/user links the C library, and a dynamically linked hook
// client starts about 0.8 ms slower on every hook (RATIONALE.md, "Why are
// the binaries static?"). A private group is decided from the files alone
// (a user served by a directory service is not in them, and gets the
// stricter answer: no private group).

// accountEntry finds the line of a passwd or group file whose third field
// (the numeric id) is id, and returns its fields. Comments, blank lines
// and malformed lines are skipped.
func accountEntry(text string, id int) ([]string, bool) {
	want := strconv.Itoa(id)
	for line := range strings.SplitSeq(text, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Split(strings.TrimSuffix(line, "\r"), ":")
		if len(f) >= 3 && f[0] != "" && f[2] == want {
			return f, true
		}
	}
	return nil, false
}

// isPrivateGroup reports whether group gid is uid's private group, from
// the texts of the passwd and group files: it is named as the user is,
// lists no other member, and is no other account's primary group. Other
// members would share what the group may write.
func isPrivateGroup(passwd, group string, uid, gid int) bool {
	u, ok := accountEntry(passwd, uid)
	if !ok {
		return false
	}
	g, ok := accountEntry(group, gid)
	if !ok || g[0] != u[0] {
		return false
	}
	if len(g) >= 4 {
		for m := range strings.SplitSeq(g[3], ",") {
			if m = strings.TrimSpace(m); m != "" && m != u[0] {
				return false
			}
		}
	}
	for line := range strings.SplitSeq(passwd, "\n") {
		f := strings.Split(strings.TrimSuffix(line, "\r"), ":")
		if len(f) >= 4 && f[0] != u[0] && f[0] != "" && line[0] != '#' && f[3] == strconv.Itoa(gid) {
			return false
		}
	}
	return true
}
