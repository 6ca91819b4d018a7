package redact

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// jiraLike is a tool response of about n bytes: a Jira search result as
// the text of one content block (so JSON inside a JSON string), prose
// and URLs in every issue, and with secrets a secret of one of four kinds
// (an AWS key, a Bearer JWT, a password under a key, a GitHub token) in
// one issue of ten.
func jiraLike(n int, secrets bool) string {
	var b strings.Builder
	b.WriteString(`{"issues":[`)
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		sec := ""
		switch i % 40 {
		case 3:
			sec = ` "aws":"AKIAIOSFODNN7EXAMPLQ",`
		case 11:
			sec = ` "note":"use Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",`
		case 23:
			sec = ` "password":"hunter2hunter2",`
		case 31:
			sec = ` "gh":"ghp_16C7e42F292c6912E7710c838347Ae178B4a",`
		}
		if !secrets {
			sec = ""
		}
		fmt.Fprintf(&b, `{"key":"CVX-%d","fields":{"summary":"Gateway retry flag misbehaves under load %d",%s"status":{"name":"In Progress"},"assignee":{"displayName":"Dana Smith","emailAddress":"dana@example.com"},"description":"The gateway retries requests after a 503 from the upstream pool. When the pool is drained the retry budget is exhausted and callers see timeouts. Steps: 1. drain pool 2. send 100 rps 3. observe p99.\nSee https://wiki.example.com/display/OPS/Gateway+Retries for context.","labels":["gateway","retry","p1"],"created":"2026-10-0%dT10:00:00.000+0000"}}`, i, i, sec, i%9)
	}
	b.WriteString(`]}`)
	resp, _ := json.Marshal([]map[string]string{{"type": "text", "text": b.String()}})
	return string(resp)
}

// BenchmarkString: a Jira-like response of 64 KiB, 1 MiB and 16 MiB,
// clean and with secrets (four kinds, 47 of each per MB). The time per
// byte must not grow with the size. Inside plugin.wasm it costs about 5
// times what it costs natively.
func BenchmarkString(b *testing.B) {
	for _, secrets := range []bool{false, true} {
		for _, size := range []int{64 << 10, 1 << 20, 16 << 20} {
			name := fmt.Sprintf("clean/%dKiB", size>>10)
			if secrets {
				name = fmt.Sprintf("secrets/%dKiB", size>>10)
			}
			b.Run(name, func(b *testing.B) {
				s := jiraLike(size, secrets)
				r := New("tok_0123456789abcdef")
				r.String(s) // rules compiled
				b.SetBytes(int64(len(s)))
				b.ReportAllocs()
				for b.Loop() {
					r.String(s)
				}
			})
		}
	}
}

// BenchmarkSpans is BenchmarkString without building the output.
func BenchmarkSpans(b *testing.B) {
	s := jiraLike(1<<20, true)
	r := New()
	r.Spans(s)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		r.Spans(s)
	}
}

// BenchmarkKnownValues: 1 MiB with secrets and 0, 1 or 10 known values
// (relay tokens, sensitive environment values): one pass finds them
// all, so ten cost about what one does.
func BenchmarkKnownValues(b *testing.B) {
	known := []string{"tok_0123456789abcdef", "tok_1123456789abcdef", "tok_2123456789abcdef", "tok_3123456789abcdef",
		"tok_4123456789abcdef", "AKIAIOSFODNN7EXAMPLE", "hunter2hunter2", "sk-proj-0123456789", "xoxb-0123456789-abc", "glpat-abcdefghij"}
	s := jiraLike(1<<20, true)
	for _, n := range []int{0, 1, 10} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			r := New(known[:n]...)
			r.String(s)
			b.SetBytes(int64(len(s)))
			b.ReportAllocs()
			for b.Loop() {
				r.String(s)
			}
		})
	}
}

// BenchmarkOwnValues: 1 MiB with secrets and 1, 10 or 100 own values (64
// hex digits each, as the hook secret), whose every 12-byte run is
// looked for: the filter holds 61 pieces a value, still one pass.
func BenchmarkOwnValues(b *testing.B) {
	s := jiraLike(1<<20, true)
	for _, n := range []int{1, 10, 100} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			own := make([]string, n)
			for i := range own {
				own[i] = fmt.Sprintf("%x", sha256.Sum256([]byte(fmt.Sprint(i))))
			}
			r := NewOwn(own)
			r.String(s)
			b.SetBytes(int64(len(s)))
			b.ReportAllocs()
			for b.Loop() {
				r.String(s)
			}
		})
	}
}
