package platform

import (
	"strings"
	"testing"
)

const passwd = `# comment
root:x:0:0:root:/root:/bin/bash
alice:x:1000:1000:Alice:/home/alice:/bin/bash
bob:x:1001:1001::/home/bob:/bin/sh
carol:x:1002:100::/home/carol:/bin/sh
dave:x:1003:1003::/home/dave:/bin/sh
erin:x:1004:1003::/home/erin:/bin/sh
`

const group = "root:x:0:\nalice:x:1000:\nbob:x:1001:bob,mallory\nusers:x:100:carol\ndave:x:1003:\r\n"

func TestIsPrivateGroup(t *testing.T) {
	for _, c := range []struct {
		name     string
		uid, gid int
		want     bool
	}{
		{"named as the user, no members", 1000, 1000, true},
		{"root's own", 0, 0, true},
		{"another member listed", 1001, 1001, false},
		{"a shared group", 1002, 100, false},
		{"another account's primary group too", 1003, 1003, false},
		{"not the user's name", 1000, 100, false},
		{"unknown user", 4242, 1000, false},
		{"unknown group", 1000, 4242, false},
	} {
		if got := isPrivateGroup(passwd, group, c.uid, c.gid); got != c.want {
			t.Errorf("%s: isPrivateGroup(%d, %d) = %v, want %v", c.name, c.uid, c.gid, got, c.want)
		}
	}
}

func TestAccountEntry(t *testing.T) {
	f, ok := accountEntry(passwd, 1001)
	if !ok || f[0] != "bob" {
		t.Fatalf("uid 1001: %q %v", f, ok)
	}
	// A line with an empty name, or too few fields, is never an answer.
	if f, ok := accountEntry(":x:7:7\nshort:7\n", 7); ok {
		t.Fatalf("malformed lines gave %q", f)
	}
}

func FuzzIsPrivateGroup(f *testing.F) {
	f.Add(passwd, group, 1000, 1000)
	f.Add("a:x:1:1\n", "a:x:1:a,,b\n", 1, 1)
	f.Fuzz(func(t *testing.T, pw, gr string, uid, gid int) {
		got := isPrivateGroup(pw, gr, uid, gid)
		if !got {
			return
		}
		// A private group is always one the files name as the user's.
		u, ok1 := accountEntry(pw, uid)
		g, ok2 := accountEntry(gr, gid)
		if !ok1 || !ok2 || u[0] != g[0] || strings.ContainsAny(u[0], ":\n") {
			t.Fatalf("private group %d for %d without a matching pair of entries: %q %q", gid, uid, u, g)
		}
	})
}
