package heldoutcorpus

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"unicode"
)

// Form is where a credential stands.
type Form string

const (
	Prose  Form = "prose"  // sentences that name the vendor in words
	Assign Form = "assign" // NAME = value, NAME: value, export NAME=value
	JSON   Form = "json"   // under a key, nested, and in an MCP result's text
	URL    Form = "url"    // percent-encoded in a query value, also \u0026-escaped
	Block  Form = "block"  // a key file alone
)

// Forms lists every form, in report order.
var Forms = []Form{Prose, Assign, JSON, URL, Block}

// Case is one credential planted in one text.
type Case struct {
	Format, Vendor string
	Kind           Kind
	Form           Form
	// Variant names the template family within the form.
	Variant string
	Seed    uint64
	Text    string
	// Secrets are the raw substrings that must disappear; Needles finds
	// how they are written in Text.
	Secrets []string
}

var proseTmpl = []string{
	"Here is the %[1]s you asked for: %[2]s. Keep it out of the repo.",
	"I rotated our %[1]s yesterday; the new one is %[2]s and the old one is revoked.",
	"Can you check why the %[1]s %[2]s gets a 401 from staging?",
	"For the %[1]s, use %[2]s until Friday, then switch to the vault copy.",
	"FYI the %[1]s is %[2]s (prod, do not share)",
	"Setting up the integration: paste %[2]s where it asks for the %[1]s.",
	"The %[1]s in the runbook is out of date - it is now\n%[2]s\nPlease update the page.",
	"%[2]s is the %[1]s for the eu-west account, per the onboarding doc.",
}

var armourProse = []string{
	"Here is the %[1]s you asked for (%[3]s):\n\n%[2]s\n\nCopy it over and restart the service.",
	"I found this %[1]s in the repo at %[3]s, is it safe to commit?\n%[2]s\nThanks!",
	"cat %[3]s\n%[2]s\n\nThat is the %[1]s on the old box.",
}

var armourInline = []string{
	"My %[1]s is %[2]s, can you set up the tunnel with it?",
	"The %[1]s on the bastion is %[2]s and it was never rotated.",
}

var assignTmpl = []string{"%[1]s = %[2]s", "%[1]s: %[2]s", "export %[1]s=%[2]s"}

var urlBases = []string{
	"https://hooks.example.net/v1/callback?mode=test&%s=%s&ts=1762164922",
	"http://localhost:8080/debug/config?env=prod&%s=%s",
	"https://dash.example.io/settings/integrations/verify?step=2&%s=%s&lang=en",
	"https://ci.example.org/job/deploy/buildWithParameters?delay=0sec&%s=%s",
}

var pasteBases = []string{
	"https://paste.example.com/api/v1/create?expire=1d&content=%s&lang=text",
	"https://files.example.net/upload?name=key.txt&data=%s",
}

// quote puts a value with blanks or shell characters in single quotes,
// as it would be written in an env file or a shell.
func quote(v string) string {
	if strings.IndexFunc(v, func(c rune) bool { return unicode.IsSpace(c) || strings.ContainsRune(`;&$!*()#"<>|`+"`", c) }) < 0 {
		return v
	}
	return "'" + v + "'"
}

// keysOf are the JSON keys a format's value is written under.
func keysOf(f *format) []string {
	if f.keys != nil {
		return f.keys
	}
	n := f.names[0]
	return []string{strings.ToLower(n), f.names[len(f.names)-1]}
}

func paramsOf(f *format) []string {
	switch {
	case f.params != nil:
		return f.params
	case f.kind == Conn:
		return []string{"dsn", "conn", "database_url", "connection_string", "uri"}
	}
	return []string{"api_key", "key", "token", "secret", "access_token", slug(f.vendor) + "_key"}
}

// Cases renders every format in every form from one seed.
func Cases(seed uint64) []Case {
	r := rand.New(rand.NewPCG(seed, 0x4e1d0c7))
	var out []Case
	for i := range formats {
		f := &formats[i]
		add := func(form Form, variant, text string, v Value) {
			out = append(out, Case{Format: f.name, Vendor: f.vendor, Kind: f.kind, Form: form, Variant: variant, Seed: seed, Text: text, Secrets: v.Secrets})
		}
		if f.kind == Armour {
			renderArmour(r, f, add)
		} else {
			renderToken(r, f, add)
		}
	}
	return out
}

type addFunc func(form Form, variant, text string, v Value)

func tmplOf(f *format, form Form, def []string) []string {
	if t, ok := f.tmpl[form]; ok {
		return t
	}
	return def
}

func renderToken(r *rand.Rand, f *format, add addFunc) {
	for i, t := range pickN(r, tmplOf(f, Prose, proseTmpl), 2) {
		v := f.gen(r)
		add(Prose, fmt.Sprint("prose-", i), fmt.Sprintf(t, pick(r, f.words...), v.Text, v.Extra), v)
	}
	for i, t := range assignTmpl {
		v := f.gen(r)
		text := fmt.Sprintf(t, pick(r, f.names...), quote(v.Text))
		if a, ok := f.tmpl[Assign]; ok {
			text = fmt.Sprintf(a[i%len(a)], "", v.Text, v.Extra)
		}
		add(Assign, []string{"name-equals", "name-colon", "export"}[i], text, v)
	}
	renderJSON(r, f, add)
	for i := 0; i < 2; i++ {
		v := f.gen(r)
		u := fmt.Sprintf(pick(r, urlBases...), pick(r, paramsOf(f)...), url.QueryEscape(v.Text))
		if f.jsonExtra != "" {
			u += "&client_email=" + url.QueryEscape(v.Extra)
		}
		if i == 0 {
			add(URL, "query", u, v)
		} else {
			add(URL, "json-u0026", fmt.Sprintf(`{"method": "GET", "url": %s, "status": 200}`, jsonStr(u)), v)
		}
	}
}

func renderJSON(r *rand.Rand, f *format, add addFunc) {
	keys := keysOf(f)
	obj := func(v Value) string {
		extra := ""
		if f.jsonExtra != "" {
			extra = fmt.Sprintf(f.jsonExtra, "", "", v.Extra)
		}
		return fmt.Sprintf(`{%s%s: %s, "environment": "production", "updated_at": "2026-11-03T10:15:00Z"}`, extra, jsonStr(pick(r, keys...)), jsonStr(v.Text))
	}
	v := f.gen(r)
	add(JSON, "object", obj(v), v)
	v = f.gen(r)
	add(JSON, "nested", fmt.Sprintf(`{"integrations": {%s: {"enabled": true, "config": %s}}, "version": 3}`, jsonStr(slug(f.vendor)), obj(v)), v)
	v = f.gen(r)
	add(JSON, "mcp-text", fmt.Sprintf(`{"content": [{"type": "text", "text": %s}], "isError": false}`, jsonStr(obj(v))), v)
}

func renderArmour(r *rand.Rand, f *format, add addFunc) {
	v := f.gen(r)
	add(Block, "alone", v.Text, v)
	v = f.gen(r)
	add(Prose, "block-in-prose", fmt.Sprintf(pick(r, armourProse...), pick(r, f.words...), v.Text, f.path), v)
	v = f.gen(r)
	if v.Inline != "" {
		add(Prose, "inline", fmt.Sprintf(pick(r, armourInline...), pick(r, f.words...), v.Inline), v)
	} else {
		add(Prose, "block-in-prose", fmt.Sprintf(pick(r, armourProse...), pick(r, f.words...), v.Text, f.path), v)
	}
	v = f.gen(r)
	add(JSON, "object", fmt.Sprintf(`{"path": %s, "mode": "0600", "content": %s}`, jsonStr(f.path), jsonStr(v.Text)), v)
	v = f.gen(r)
	add(JSON, "nested", fmt.Sprintf(`{"files": [{"name": %s, "data": {"encoding": "utf-8", "text": %s}}]}`, jsonStr(f.path), jsonStr(v.Text)), v)
	v = f.gen(r)
	add(JSON, "mcp-text", fmt.Sprintf(`{"content": [{"type": "text", "text": %s}], "isError": false}`, jsonStr(v.Text)), v)
	v = f.gen(r)
	add(URL, "query", fmt.Sprintf(pick(r, pasteBases...), url.QueryEscape(v.Text)), v)
	v = f.gen(r)
	add(URL, "json-u0026", fmt.Sprintf(`{"method": "POST", "url": %s}`, jsonStr(fmt.Sprintf(pick(r, pasteBases...), url.QueryEscape(v.Text)))), v)
}

// pickN picks n distinct templates.
func pickN(r *rand.Rand, xs []string, n int) []string {
	p := r.Perm(len(xs))
	out := make([]string, 0, n)
	for _, i := range p[:min(n, len(xs))] {
		out = append(out, xs[i])
	}
	return out
}

// Needles are the ways s may be written in a case's text: raw, in a
// JSON string (once or twice), percent-encoded, and both.
func Needles(s string) []string {
	q := url.QueryEscape(s)
	cand := []string{s, jsonEsc(s), jsonEsc(jsonEsc(s)), q, jsonEsc(q), jsonEsc(jsonEsc(q))}
	var out []string
	for _, c := range cand {
		dup := false
		for _, o := range out {
			dup = dup || o == c
		}
		if !dup {
			out = append(out, c)
		}
	}
	return out
}

// Check reports an error when a secret of c is not written in c's text
// in any of its encodings: such a case would measure nothing.
func (c Case) Check() error {
	if len(c.Secrets) == 0 {
		return fmt.Errorf("heldoutcorpus: %s/%s seed %d: no secret", c.Format, c.Variant, c.Seed)
	}
	for _, s := range c.Secrets {
		found := false
		for _, n := range Needles(s) {
			found = found || strings.Contains(c.Text, n)
		}
		if !found {
			return fmt.Errorf("heldoutcorpus: %s/%s seed %d: secret %.20q... not in its text", c.Format, c.Variant, c.Seed, s)
		}
	}
	return nil
}

// Leaked returns the first run of a secret of c that survives in out: a
// Window-byte stretch of the secret as written (raw or encoded), or the
// whole of a secret shorter than Window. "" means caught.
func (c Case) Leaked(out string) string {
	for _, s := range c.Secrets {
		for _, n := range Needles(s) {
			if len(n) < Window {
				if strings.Contains(out, n) {
					return n
				}
				continue
			}
			for i := 0; i+Window <= len(n); i++ {
				if strings.Contains(out, n[i:i+Window]) {
					return n[i : i+Window]
				}
			}
		}
	}
	return ""
}
