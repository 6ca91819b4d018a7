package mcpserver

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestMergeHits: the hit missing fewer terms comes first; on a tie each
// list keeps its own order, interleaved rank by rank, the local one first.
func TestMergeHits(t *testing.T) {
	h := func(ref string, missing int) Hit { return Hit{Ref: ref, Missing: make([]string, missing)} }
	for _, c := range []struct {
		name          string
		local, remote []Hit
		want          string
	}{
		{"none", nil, nil, ""},
		{"local only", []Hit{h("1", 0), h("2", 1)}, nil, "1 2"},
		{"shared only", nil, []Hit{h("s1", 0)}, "s1"},
		{"interleaved", []Hit{h("1", 0), h("2", 0)}, []Hit{h("s1", 0), h("s2", 0)}, "1 s1 2 s2"},
		{"fuller match first", []Hit{h("1", 1), h("2", 1)}, []Hit{h("s1", 0), h("s2", 2)}, "s1 1 2 s2"},
		{"own order kept", []Hit{h("1", 0), h("2", 2)}, []Hit{h("s1", 1)}, "1 s1 2"},
	} {
		var got []string
		for _, x := range mergeHits(c.local, c.remote) {
			got = append(got, x.Ref)
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s: %v, want %s", c.name, got, c.want)
		}
	}
}

// TestSharedRetry: an unreachable shared store is tried once per
// sharedRetry, not on every call; a read that fails drops the connection.
func TestSharedRetry(t *testing.T) {
	opens := 0
	fail := true
	c := &sharedConn{open: func() (Shared, error) {
		opens++
		if fail {
			return nil, errors.New("connection refused")
		}
		return nil, nil
	}}
	now := time.Unix(1000, 0)
	for i := 0; i < 5; i++ {
		if _, err := c.get(now.Add(time.Duration(i) * time.Second)); err == nil {
			t.Fatal("no error from an unreachable store")
		}
	}
	if opens != 1 {
		t.Fatalf("%d tries within %v, want 1", opens, sharedRetry)
	}
	fail = false
	if _, err := c.get(now.Add(sharedRetry)); err != nil || opens != 2 {
		t.Fatalf("after %v: %v, %d tries", sharedRetry, err, opens)
	}
	if _, ok := sharedRef("s12"); !ok {
		t.Error("s12 is a shared ref")
	}
	for _, bad := range []string{"s", "s0", "s-1", "12", "c3", "sx"} {
		if _, ok := sharedRef(bad); ok {
			t.Errorf("%q read as a shared ref", bad)
		}
	}
}
