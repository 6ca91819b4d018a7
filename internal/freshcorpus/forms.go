package freshcorpus

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
)

// Form is where a credential stands.
type Form string

const (
	Prose  Form = "prose"
	Assign Form = "assign"
	JSON   Form = "json"
	URL    Form = "url"
	Native Form = "native" // the file the format lives in
)

// Forms lists every form, in report order.
var Forms = []Form{Prose, Assign, JSON, URL, Native}

// Case is one credential planted in one text.
type Case struct {
	Format  string
	Kind    Kind
	Form    Form
	Variant string
	Seed    uint64
	Text    string
	// Needles are the secret's parts as written in Text.
	Needles []string
}

// Leaked returns a run of a needle that survives in out, or "".
// Needles shorter than Window must be gone whole.
func (c Case) Leaked(out string) string {
	for _, n := range c.Needles {
		w := min(Window, len(n))
		for i := 0; i+w <= len(n); i++ {
			if strings.Contains(out, n[i:i+w]) {
				return n[i : i+w]
			}
		}
	}
	return ""
}

// Check reports a case whose needles are not in its own text.
func (c Case) Check() error {
	for _, n := range c.Needles {
		if !strings.Contains(c.Text, n) {
			return fmt.Errorf("freshcorpus: %s/%s/%s seed %d: needle %q not in text", c.Format, c.Form, c.Variant, c.Seed, n)
		}
	}
	return nil
}

var proseTmpl = []string{
	"here's the key for %[3]s: %[2]s",
	"%[3]s support says the %[1]s is %[2]s and that we should rotate it after the migration.",
	"[10:42] dana: what's the %[1]s again?\n[10:43] sam: %[2]s\n[10:43] dana: thx, got it",
	"2025-03-04T10:22:31.118Z INFO  bootstrap loaded %[1]s=%[2]s source=env pid=4411",
	"| service | %[1]s | owner |\n|---|---|---|\n| %[3]s | `%[2]s` | platform |",
	"// TODO(ops): move the %[1]s (%[2]s) into the secret store before the release",
	"# %[1]s -> %[2]s  (do not commit)",
	"Hi team,\n\nThe new %[1]s for %[3]s is below.\n\n    %[2]s\n\nRegards,\nOps",
	"I pasted the %[1]s into the CI settings: %[2]s — tell me if the pipeline still fails.",
	"> **%[1]s**: %[2]s\n> valid until the end of the quarter",
	"Why does %[3]s reject my %[1]s? I'm sending %[2]s exactly as shown in the console.",
	"<li>%[1]s: <code>%[2]s</code></li>",
}

var assignTmpl = []string{
	"%[1]s = %[2]s",
	"export %[1]s=%[2]s",
	"%[1]s: %[2]s",
	"%[1]s=\"%[2]s\"",
	"$env:%[1]s = '%[2]s'",
	"ENV %[1]s=%[2]s",
	"      - %[1]s=%[2]s",
	"set -x %[1]s '%[2]s'",
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

var jsonTmpl = []string{
	`{"%[1]s": "%[2]s"}`,
	`{"service": "%[3]s", "config": {"region": "eu-west-1", "%[1]s": "%[2]s", "retries": 3}}`,
	`[{"name": "prod", "%[1]s": "%[2]s", "enabled": true}]`,
}

// lowerEscape percent-encodes every byte outside the unreserved set with
// lower-case hex, as some clients do.
func lowerEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x80 && (strings.IndexByte(alnum, c) >= 0 || strings.IndexByte("-._~", c) >= 0) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02x", c)
		}
	}
	return b.String()
}

// urlVariant writes v as a query value; it returns the text and the
// value as written.
func urlVariant(i int, key, v string) (variant, text, written string) {
	switch i {
	case 0:
		w := url.QueryEscape(v)
		return "query-plus", "GET https://hooks.example.net/v2/cb?" + key + "=" + w + "&ts=1700000000 HTTP/1.1", w
	case 1:
		w := lowerEscape(v)
		return "lower-hex", "curl -s 'https://api.example.org/sync?region=eu&" + key + "=" + w + "'", w
	case 2:
		w := url.QueryEscape(url.QueryEscape(v))
		return "double", "redirect to https://login.example.com/authorize?next=%2Fcb%3F" + key + "%3D" + w + "&state=xyz", w
	case 3:
		w := url.QueryEscape(v)
		return "json-u0026", `{"url": "https://app.example.com/connect?client=web\u0026` + key + `=` + w + `\u0026mode=1"}`, w
	default:
		w := strings.ReplaceAll(url.PathEscape(v), "%20", "+")
		return "form-body", "POST /oauth/token\nContent-Type: application/x-www-form-urlencoded\n\ngrant_type=client_credentials&" + key + "=" + w, w
	}
}

// Cases draws every case of one seed.
func Cases(seed uint64) []Case {
	var out []Case
	for fi, fm := range Formats() {
		r := rand.New(rand.NewPCG(seed, uint64(fi)+7919))
		base := Case{Format: fm.Name, Kind: fm.Kind, Seed: seed}
		add := func(form Form, variant, text string, needles []string) {
			c := base
			c.Form, c.Variant, c.Text, c.Needles = form, variant, text, needles
			out = append(out, c)
		}
		v := fm.Gen(r)
		parts := secrets(v)
		word := fm.Words[r.IntN(len(fm.Words))]
		ti := int(seed+uint64(fi)) % len(proseTmpl)
		pv := v
		if strings.Contains(v, "\n") {
			pv = "\n```\n" + v + "\n```\n"
		}
		add(Prose, fmt.Sprint("t", ti), fmt.Sprintf(proseTmpl[ti], word, pv, fm.Vendor), parts)

		v = fm.Gen(r)
		parts = secrets(v)
		name := fm.Names[r.IntN(len(fm.Names))]
		ai := int(seed*3+uint64(fi)) % len(assignTmpl)
		if strings.Contains(v, "\n") {
			add(Assign, "yaml-block", name+": |\n  "+strings.ReplaceAll(v, "\n", "\n  "), parts)
		} else {
			add(Assign, fmt.Sprint("a", ai), fmt.Sprintf(assignTmpl[ai], name, v), parts)
		}

		v = fm.Gen(r)
		key := fm.Keys[r.IntN(len(fm.Keys))]
		ji := int(seed+uint64(fi)*5) % (len(jsonTmpl) + 1)
		var needles []string
		for _, p := range secrets(v) {
			needles = append(needles, jsonString(p))
		}
		if ji == len(jsonTmpl) {
			// An MCP tool result: the JSON document inside a text field.
			inner := fmt.Sprintf(`{"%s": "%s", "ok": true}`, key, jsonString(v))
			var nn []string
			for _, n := range needles {
				nn = append(nn, jsonString(n))
			}
			add(JSON, "mcp-text", `{"content":[{"type":"text","text":"`+jsonString(inner)+`"}],"isError":false}`, nn)
		} else {
			add(JSON, fmt.Sprint("j", ji), fmt.Sprintf(jsonTmpl[ji], key, jsonString(v), fm.Vendor), needles)
		}

		v = fm.Gen(r)
		ui := int(seed+uint64(fi)) % 5
		variant, text, written := urlVariant(ui, strings.ToLower(key), v)
		add(URL, variant, text, []string{written})

		if fm.Native != nil {
			v = fm.Gen(r)
			text := fm.Native(r, v)
			var nn []string
			for _, p := range secrets(v) {
				if !strings.Contains(text, p) {
					p = commaPairs(p)
				}
				nn = append(nn, p)
			}
			add(Native, "file", text, nn)
		}
	}
	return out
}

// commaPairs writes hex as regedit does: byte pairs joined by commas.
func commaPairs(h string) string {
	var parts []string
	for i := 0; i+1 < len(h); i += 2 {
		parts = append(parts, h[i:i+2])
	}
	return strings.Join(parts, ",")
}
