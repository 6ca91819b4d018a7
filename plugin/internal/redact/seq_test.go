package redact

import (
	"math/rand/v2"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/internal/secretcorpus"
)

// sequential is the reference the passes must equal: each stage on the
// text the one before it left, the text rebuilt after every stage that
// changed it and its anchors found again with strings.Index, as the
// first versions did. It shares the stages' own code (the JSON-key
// scanner, a rule in its windows) but none of the edits' bookkeeping.
func sequential(r *Redactor, s string) (string, int) {
	s, n := naiveKnown(r, s)
	s, m := jsonKeys(s)
	n += m
	hits := allHits(s)
	for i, ru := range rules {
		if len(hits[i]) == 0 {
			continue
		}
		p := newPass(s)
		p.cur = i
		p.rule(ru, hits[i])
		if p.n > 0 {
			n += p.n
			s = p.t.String()
			hits = allHits(s)
		}
	}
	p := newPass(s)
	p.unnamed()
	return p.t.String(), n + p.n
}

// allHits is every rule's anchors in s that its pre test accepts.
func allHits(s string) [][]hit {
	b := []byte(s)
	for i, c := range b {
		b[i] = lowerTab[c]
	}
	lower := string(b)
	out := make([][]hit, len(rules))
	for ri, ru := range rules {
		if ru.class != nil {
			for at := 0; at+4 <= len(s); at++ {
				if inClass(s[at:at+4], ru.class) && ru.accepts(s, at, 4) {
					out[ri] = append(out[ri], hit{at, 4})
				}
			}
		}
		for _, a := range ru.anchors {
			for i := 0; ; {
				j := strings.Index(lower[i:], a)
				if j < 0 {
					break
				}
				at := i + j
				if ru.accepts(s, at, len(a)) {
					out[ri] = append(out[ri], hit{at, len(a)})
				}
				i = at + 1
			}
		}
		slices.SortStableFunc(out[ri], func(a, b hit) int { return a.p - b.p })
	}
	return out
}

// FuzzPassMatchesSequential: the one pass with its edits gives what the
// sequential reference gives, text and count, on any input and known
// values (one per line of known).
func FuzzPassMatchesSequential(f *testing.F) {
	for _, s := range interactions {
		f.Add(s.in, s.known)
	}
	f.Add(`{"password":"x1234"}`, "tok_abcdefgh12")
	f.Add("Bearer abcdefghijkl", "")
	f.Add("postgres://u:p@h/db", "")
	f.Add("a tok_0123456789abcdef-longer b tok_0123456789abcdef c", "tok_0123456789abcdef\ntok_0123456789abcdef-longer\n0123456789")
	f.Add("x f0a1b2c3d4e5f607182\\u00393a4b y", "!f0a1b2c3d4e5f60718293a4b5c6d7e8f")
	f.Add("AB3\\/XY9+QW7\n/LM2=ZK8", "!Ab3/Xy9+Qw7/Lm2=Zk8pV4r6")
	f.Fuzz(func(t *testing.T, s, known string) {
		if len(s)*len(known) > 1<<16 {
			return // the reference is quadratic
		}
		// A line starting with ! is an own value (runs), else a whole one.
		var own, whole []string
		for _, k := range strings.Split(known, "\n") {
			if v, ok := strings.CutPrefix(k, "!"); ok {
				own = append(own, v)
			} else {
				whole = append(whole, k)
			}
		}
		r := NewOwn(own, whole...)
		got, n := r.String(s)
		want, m := sequential(r, s)
		if got != want || n != m {
			t.Fatalf("%q (known %q):\n pass       %q (%d)\n sequential %q (%d)", s, known, got, n, want, m)
		}
		spans, _ := r.Spans(s)
		var b strings.Builder
		for i, sp := range spans {
			if sp.Start > sp.End || sp.End > len(s) || i > 0 && sp.Start < spans[i-1].End {
				t.Fatalf("spans out of order: %v", spans)
			}
		}
		if WriteSpans(&b, s, spans); b.String() != got {
			t.Fatalf("WriteSpans %q, String %q", b.String(), got)
		}
	})
}

// interactions are texts where a stage must see what an earlier one
// wrote: a marker next to an anchor, in a pre test's reach, inside a
// later match, or holding an anchor itself.
var interactions = []struct{ name, in, known, want string }{
	{name: "known value inside a JSON value", in: `{"session_token": "tok_abcdefgh12"}`, known: "tok_abcdefgh12",
		want: `{"session_token": "[REDACTED]"}`},
	{name: "known value is the whole JSON value: counted once", in: `{"session_token": "tok_abcdefgh12", "x": 1}`, known: "tok_abcdefgh12",
		want: `{"session_token": "[REDACTED]", "x": 1}`},
	{name: "known value is the user of a URL; the password still goes", in: "https://tok_abcdefgh12:hunter22@host/x", known: "tok_abcdefgh12",
		want: "https://[REDACTED]:[REDACTED]@host/x"},
	{name: "known value is part of a URL password: the rule takes the rest", in: "https://u:xxtok_abcdefgh12@host/x", known: "tok_abcdefgh12",
		want: "https://u:[REDACTED]@host/x"},
	{name: "a space in the userinfo went with a known value", in: "https://u:pa ss-word@host/x", known: "pa ss-word",
		want: "https://u:[REDACTED]@host/x"},
	{name: "a marker makes a word boundary for a later rule", in: "tok_abcdefgh12AKIAIOSFODNN7EXAMPLQ", known: "tok_abcdefgh12",
		want: "[REDACTED][REDACTED:aws_access_key]"},
	{name: "a JSON value replaced next to a key=value", in: `{"password":"hunter2hunter2"} password=hunter2hunter2`,
		want: `{"password":"[REDACTED]"} password=[REDACTED]`},
	{name: "private key holding a known value", in: "-----BEGIN RSA PRIVATE KEY-----\nMIIEowtok_abcdefgh12\n-----END RSA PRIVATE KEY-----",
		known: "tok_abcdefgh12", want: "[REDACTED:private_key]"},
	{name: "known value in a JSON key's reach", in: `{"tok_abcdefgh12password": "x"} {"a": "tok_abcdefgh12", "token": "y"}`,
		known: "tok_abcdefgh12", want: `{"[REDACTED]password": "x"} {"a": "[REDACTED]", "token": "[REDACTED]"}`},
	{name: "known value holding a quote inside a JSON value", in: `{"token": "a"bcdefgh"z", "n": 1}`, known: `a"bcdefgh`,
		want: `{"token": "[REDACTED]"z", "n": 1}`},
	{name: "a known value with a bracket (slow path)", in: "a p[a]ssw0rd! b [REDACTED] c", known: "p[a]ssw0rd!",
		want: "a [REDACTED] b [REDACTED] c"},
	{name: "a known value that is part of a marker is left out", in: "x REDACTED y", known: "REDACTED", want: "x REDACTED y"},
	{name: "edits on both sides of a Bearer value", in: "Authorization: Bearer tok_abcdefgh12.tok_abcdefgh12 x", known: "tok_abcdefgh12",
		want: "Authorization: Bearer [REDACTED].[REDACTED] x"},
}

func TestInteractions(t *testing.T) {
	for _, tt := range interactions {
		t.Run(tt.name, func(t *testing.T) {
			r := New(tt.known)
			got, n := r.String(tt.in)
			want, m := sequential(r, tt.in)
			if got != want || n != m {
				t.Errorf("pass %q (%d), sequential %q (%d)", got, n, want, m)
			}
			if tt.want != "" && got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if again, _ := r.String(got); again != got {
				t.Errorf("not idempotent: %q -> %q", got, again)
			}
			spans, _ := r.Spans(tt.in)
			var b strings.Builder
			if err := WriteSpans(&b, tt.in, spans); err != nil || b.String() != got {
				t.Errorf("WriteSpans: %q, String: %q", b.String(), got)
			}
		})
	}
}

// TestPreReach: a pre test is given preBack bytes before its anchor and
// its reach after it (accepts), and must decide there what it would
// decide on the whole text, or it would reject what its pattern matches.
// The texts are anchors followed by runs of one kind of byte each
// (blanks, key bytes, an operator, quotes, value bytes...), short or
// hundreds of bytes long, so that every test reads as far as it can.
func TestPreReach(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	classes := []string{" ", " \t\n", "aZ09_", "aZ09_.-", "=", ":", "\"", "'", "@", "/", ".", "-", "\\", "=>:|?,",
		"abcdef0123456789", "ABCDEFGHIJKLMNOPQRSTUVWXYZ ", "[];&,", "aZ09+/=", "`"}
	run := func(b *strings.Builder) {
		cl := classes[r.IntN(len(classes))]
		n := r.IntN(4)
		if r.IntN(3) == 0 {
			n = r.IntN(700)
		}
		for k := 0; k < n; k++ {
			b.WriteByte(cl[r.IntN(len(cl))])
		}
	}
	// Texts each test reads to its limit, or one byte past it.
	var edge []string
	for k := 500; k < 530; k++ {
		edge = append(edge, "x https://"+strings.Repeat("u", k/2)+":"+strings.Repeat("p", k-k/2)+"@host/")
		edge = append(edge, "password"+strings.Repeat(" ", k/2)+"="+strings.Repeat(" ", k-k/2-8)+"hunter22")
		edge = append(edge, "Cookie"+strings.Repeat(" ", k)+": a=bcdefgh")
	}
	for k := 0; k < 50; k++ {
		edge = append(edge, "-----BEGIN"+strings.Repeat("A", k)+" PRIVATE KEY-----\nMIIE")
		edge = append(edge, "--"+strings.Repeat("a-", k)+"password hunter22")
		edge = append(edge, "api_key"+strings.Repeat("x", k)+strings.Repeat(" ", k/4)+"="+strings.Repeat("'", k/3)+strings.Repeat("z", 10+k))
		edge = append(edge, "hashicorp password"+strings.Repeat(" ", k/3)+"="+strings.Repeat(" ", k/5)+`"`+strings.Repeat("q", 8+k/4)+`"`)
	}
	for _, p := range secretcorpus.Generate(3) {
		edge = append(edge, p.Text)
	}
	checked := 0
	texts := edge
	for iter := 0; iter < 6000; iter++ {
		var b strings.Builder
		run(&b)
		ru := rules[r.IntN(len(rules))]
		for ru.pre == nil {
			ru = rules[r.IntN(len(rules))]
		}
		lits := ru.literals()
		b.WriteString(lits[r.IntN(len(lits))])
		for k := r.IntN(8); k >= 0; k-- {
			run(&b)
		}
		texts = append(texts, b.String())
	}
	for _, s := range texts {
		sc := theScanner()
		sc.scan(s, 0, len(s), func(i int, a int32) {
			x := &sc.anchors[a]
			for _, ri := range x.rules {
				ru := rules[ri]
				if ru.pre == nil {
					continue
				}
				if got, want := ru.accepts(s, i, x.n), ru.pre(s, i, x.n); got != want {
					t.Fatalf("%s at %d of %q: %v on the piece, %v on the text", ru.kind, i, s, got, want)
				}
				checked++
			}
		})
	}
	t.Logf("%d anchors checked", checked)
}

func TestShapes(t *testing.T) {
	for _, tt := range []struct {
		pattern  string
		anchors  []string
		at, held bool
		max      int
	}{
		{`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`, []string{"akia", "asia"}, true, true, 20},
		{`(?i)(\b(?:proxy-)?authorization\s*:)x`, []string{"authorization"}, false, true, -1},
		{`(?i)(\b(?:proxy-)?authorization\s*:)x`, []string{"authorization", "proxy-authorization"}, true, true, -1},
		{`\bgh[pousr]_[A-Za-z0-9]{36}`, []string{"ghp_", "gho_", "ghu_", "ghs_"}, false, false, 40},
		// (?i): \w, k and s also match the Kelvin sign and the long s.
		{`(?i)[\w.-]{0,50}?(?:adafruit)(?:[ \t\w.-]{0,20})=([a-z0-9_-]{32})`, []string{"adafruit"}, false, true, 417},
		{`((?:\bcookie:|;\s*)[a-z]+=)[a-z]{6,}`, []string{"cookie"}, false, false, -1},
		{`x?key`, []string{"key"}, false, true, 4},
	} {
		re, err := syntax.Parse(tt.pattern, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if at, held, max := startsWithAnchor(re, tt.anchors), holdsAnchor(re, tt.anchors), maxLen(re); at != tt.at || held != tt.held || max != tt.max {
			t.Errorf("%s %v: at %v holds %v max %d, want %v %v %d", tt.pattern, tt.anchors, at, held, max, tt.at, tt.held, tt.max)
		}
	}
}

// TestShapesOnCorpus: on the planted secrets and a response with all of
// them, every match a plain search finds starts with an anchor where
// the rule says it must (at), and holds one where it says it does.
func TestShapesOnCorpus(t *testing.T) {
	var texts []string
	for _, p := range secretcorpus.Generate(3) {
		texts = append(texts, p.Text)
	}
	texts = append(texts, jiraLike(64<<10, true))
	for _, ru := range rules {
		ru.compile()
		if !ru.at && !ru.holds {
			continue
		}
		lits := ru.literals()
		for _, s := range texts {
			lower := strings.ToLower(s)
			for _, m := range ru.re.FindAllStringIndex(s, -1) {
				at, held := false, false
				for _, a := range lits {
					at = at || strings.HasPrefix(lower[m[0]:], a)
					held = held || strings.Contains(lower[m[0]:m[1]], a)
				}
				if ru.at && !at || !held {
					t.Errorf("%s: match %q (at %v, holds %v)", ru.kind, s[m[0]:m[1]], ru.at, ru.holds)
				}
			}
		}
	}
}

// FuzzPreSound: a pre test only spares work, never changes a result.
// Redaction with every pre test turned off (each anchor's window
// searched by the pattern) must give the same text and count.
func FuzzPreSound(f *testing.F) {
	for _, s := range []string{
		`{"key":"CVX-123456","api_version":"2024-11-01","token":"aaaaaaaaaabbbbbbbbbb"}`,
		`key = "xQ9z7Lw2Rt5Yp8Nd4Kv6"`, `"auth": "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA=="`,
		`password: hunter22 secret=s3cr3tValue99 access_token=abcdefghij0123456789`,
		"postgres://svc:planted-db-pass-9c1e@db.internal:5432/app",
	} {
		f.Add(s)
	}
	for _, p := range secretcorpus.Generate(5)[:40] {
		f.Add(p.Text)
	}
	f.Fuzz(func(t *testing.T, s string) {
		with, n1 := New().String(s)
		noPre = true
		without, n2 := New().String(s)
		noPre = false
		if with != without || n1 != n2 {
			t.Fatalf("%q: with pre tests %q (%d), without %q (%d)", s, with, n1, without, n2)
		}
	})
}

// TestPreSound is FuzzPreSound over texts made to put anchors near
// assignments, quotes and runs of every class: the secret corpus, 4,000
// random mixes, and generic values of 10 to 12 distinct bytes (the
// bound genericValueAfter draws).
func TestPreSound(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	classes := []string{" ", "aZ09_", "aZ09_.-", "=", ":", "\"", "'", "\\", "=>:|?,", "abcdef0123456789", "aZ09+/=", "`", "\n"}
	var texts []string
	for _, p := range secretcorpus.Generate(11) {
		texts = append(texts, p.Text)
	}
	for iter := 0; iter < 4000; iter++ {
		var b strings.Builder
		for k := r.IntN(6) + 1; k > 0; k-- {
			cl := classes[r.IntN(len(classes))]
			for n := r.IntN(30); n > 0; n-- {
				b.WriteByte(cl[r.IntN(len(cl))])
			}
			if r.IntN(2) == 0 {
				ru := rules[r.IntN(len(rules))]
				lits := ru.literals()
				b.WriteString(lits[r.IntN(len(lits))])
			}
		}
		texts = append(texts, b.String())
	}
	for d := 9; d <= 13; d++ {
		alphabet := "AbCdEfGhIjKlMnOpQ"[:d]
		for _, sep := range []string{`": "`, "=", ": ", `\": \"`} {
			texts = append(texts, `{"api_key`+sep+secretcorpus.RandString(r, alphabet, 24)+`"}`)
		}
	}
	for _, s := range texts {
		with, n1 := New().String(s)
		noPre = true
		without, n2 := New().String(s)
		noPre = false
		if with != without || n1 != n2 {
			t.Fatalf("%q: with pre tests %q (%d), without %q (%d)", s, with, n1, without, n2)
		}
	}
	t.Logf("%d texts", len(texts))
}
