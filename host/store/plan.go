package store

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A plan is what rank searches for: the query's content terms (each
// optional, weighted by rarity), and the words that only hint at which
// event is meant. An agent asks in its own words ("who owns the ticket
// for CHK-4410"): question and filler words are in nearly every record
// or in none, and record and field words ("ticket", "PR", "who owns")
// name the kind of record or the field the answer is in, which the
// record's text may never spell. Neither may make a query fail.
type plan struct {
	// terms are the content terms, each one MATCH expression (a quoted
	// phrase) for the word and trigram indexes, raw its text as typed
	// (normalized), for snippets and for reporting.
	terms []planTerm
	// ignored are the question and filler words left out.
	ignored []string
	// hints are the record and field words found, with what they point to.
	hints []hint
}

type planTerm struct {
	raw    string
	clause int
	// stem is raw's dictionary form when it differs ("locking": "lock"),
	// and related the words for the same thing (expand): what a snippet
	// may find instead, and related what the index is asked for too.
	stem    string
	related []string
}

// hint points at events of a kind (their server or tool names one of
// tools) or holding a field (one of fields: the names MCP servers give
// it in their results).
type hint struct {
	word   string
	tools  []string
	fields []string
	// clause is the part of the query it is in ("who owns X and which
	// release did Y ..." has two): its field is asked of that part's terms.
	clause int
}

// stopwords are question and filler words: English function words, and
// the verbs an agent asks with. They are searched for only when a query
// has nothing else.
var stopwords = setOf(`a an the of for in on at to from by with and or but not no is are was were be been being
	am do does did done has have had having it its this that these those there here what which who whom whose
	when where why how me my we our us you your i he she they them their his her any all some each
	can could should would will shall may might must about into onto over under after before since until
	than then so if as also just only very show find get give tell look looking need want please
	happen happened happens went goes going make made plus both either`)

// recordHints map words naming a kind of record to the tool and server
// names that kind comes from, as MCP servers name them (Jira, Linear,
// GitHub, GitLab, Sentry, Grafana/Loki, Datadog, Confluence, Notion,
// PagerDuty, incident.io, Opsgenie).
var recordHints = map[string][]string{
	"ticket": {"jira", "linear", "issue"}, "tickets": {"jira", "linear", "issue"},
	"issue": {"jira", "linear", "issue", "sentry"}, "issues": {"jira", "linear", "issue", "sentry"},
	"story": {"jira", "linear"}, "epic": {"jira", "linear"}, "jira": {"jira"}, "linear": {"linear"},
	"pr": {"pull_request", "pull", "merge_request", "github", "gitlab"}, "prs": {"pull_request", "pull", "github"},
	"pull": {"pull_request", "pull", "github"}, "mr": {"merge_request", "gitlab"},
	"github": {"github"}, "gitlab": {"gitlab"}, "commit": {"commit", "github", "gitlab"},
	"fix": {"pull_request", "pull", "merge_request", "commit"}, "fixed": {"pull_request", "pull", "merge_request", "commit"},
	"sentry": {"sentry"}, "crash": {"sentry"}, "exception": {"sentry"},
	"log": {"log", "loki", "datadog"}, "logs": {"log", "loki", "datadog"}, "loki": {"loki"},
	"runbook": {"confluence", "page", "notion", "wiki", "doc"}, "runbooks": {"confluence", "page", "notion", "wiki"},
	"playbook": {"confluence", "page", "notion", "wiki"}, "wiki": {"confluence", "wiki", "notion"},
	"confluence": {"confluence"}, "docs": {"docs", "doc", "context7", "library"}, "documentation": {"docs", "doc", "context7"},
	"incident": {"incident", "pagerduty", "opsgenie"}, "incidents": {"incident", "pagerduty", "opsgenie"},
	"postmortem": {"incident", "confluence"}, "dashboard": {"grafana", "dashboard", "panel"},
	"panel": {"grafana", "panel", "prometheus"}, "graph": {"grafana", "prometheus"}, "metric": {"prometheus", "metric"},
	"metrics": {"prometheus", "metric"}, "grafana": {"grafana"}, "prometheus": {"prometheus"},
}

// recordFields name, for a record word, the field that titles such a
// record (GitHub's title, Jira's summary, Sentry's title): what a
// snippet of a record asked for by kind and id shows.
var recordFields = map[string][]string{
	"pr": {"title"}, "prs": {"title"}, "pull": {"title"}, "mr": {"title"}, "fix": {"title"}, "fixed": {"title"},
	"ticket": {"summary"}, "tickets": {"summary"}, "issue": {"summary", "title"}, "story": {"summary"}, "epic": {"summary"},
	"sentry": {"title"}, "crash": {"title"}, "exception": {"title"},
}

// fieldHints map words an agent asks a field with to the field names
// servers use for it (Jira's assignee and fixVersions, GitHub's user,
// requested_reviewers and merged_by, Sentry's firstRelease and culprit,
// incident tools' lead and root cause; "why" asks for a cause).
var fieldHints = map[string][]string{
	"owns": {"assignee", "owner"}, "owner": {"assignee", "owner"}, "owned": {"assignee", "owner"},
	"assigned": {"assignee", "assigned"}, "assignee": {"assignee"}, "working": {"assignee"},
	"reviewed": {"reviewer", "reviewers", "requested_reviewers", "approved"}, "reviewer": {"reviewer", "reviewers", "requested_reviewers"},
	"approved": {"approved", "reviewer"}, "merged": {"merged_by", "merged"}, "merge": {"merged_by", "merged"}, "merger": {"merged_by", "merged"},
	"author": {"author", "user", "creator"}, "wrote": {"author", "user"}, "opened": {"author", "user", "creator"},
	"reported": {"reporter", "creator"}, "reporter": {"reporter"}, "created": {"creator", "created"},
	"release": {"release", "first release", "firstrelease", "first_release", "fixversions", "fix_version", "fix version"}, "released": {"release", "fixversions"},
	"version": {"version", "fixversions", "fix_version", "fix version", "release"}, "shipped": {"fixversions", "release"},
	"first": {"first release", "firstrelease", "first_release", "first_seen", "firstseen", "first seen"}, "appear": {"firstrelease", "first_seen"},
	"appeared": {"firstrelease", "first_seen"}, "status": {"status", "state"}, "state": {"status", "state"},
	"priority": {"priority", "severity"}, "severity": {"severity", "priority"}, "branch": {"branch", "head", "ref"},
	"lead": {"lead", "commander"}, "led": {"lead", "commander"}, "escalate": {"escalation", "escalate", "contact"},
	"escalation": {"escalation", "contact"}, "contact": {"contact", "escalation"}, "mitigation": {"mitigation", "mitigate"},
	"mitigate": {"mitigation", "mitigate"}, "mitigated": {"mitigation"}, "cause": {"root cause", "root_cause", "cause"},
	"why": {"root cause", "root_cause", "cause"}, "caused": {"root cause", "root_cause", "cause"}, "reason": {"root cause", "root_cause", "cause", "reason"},
	"culprit": {"culprit"}, "command": {"run", "command"}, "default": {"default"}, "peak": {"peak"}, "files": {"files", "filename"},
}

func setOf(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// trimTerm strips what an agent types around a term but no index holds:
// sentence punctuation, a leading # (PR #4412), a possessive, an ellipsis.
func trimTerm(t string) string {
	t = strings.TrimSuffix(strings.TrimSuffix(t, "'s"), "’s")
	return strings.TrimFunc(t, func(r rune) bool {
		return r == '#' || r == '…' || r == '?' || r == '!' || r == ',' || r == ';' || r == ':' ||
			r == '.' || r == '(' || r == ')' || r == '[' || r == ']' || r == '{' || r == '}' ||
			r == '\'' || r == '`' || r == '"' || r == '“' || r == '”' || r == '‘' || r == '’' || unicode.IsSpace(r)
	})
}

// planOf splits a query into content terms, hints and ignored words. A
// quoted phrase is always a content term, as typed.
func planOf(q Query) plan {
	var p plan
	clause := 0
	seen := map[string]bool{}
	add := func(t string) {
		if k := asciiLower(t); !seen[k] {
			seen[k] = true
			p.terms = append(p.terms, planTerm{raw: t, clause: clause})
		}
	}
	var fallback []string
	for _, t := range q.Terms {
		if lt := strings.ToLower(t); lt == "and" || lt == "plus" || lt == "also" {
			clause++
		}
		if strings.ContainsAny(t, " \t") { // a quoted phrase
			add(t)
			continue
		}
		w := trimTerm(t)
		if w == "" {
			w = t
		}
		lw := strings.ToLower(w)
		tools, isRecord := recordHints[lw]
		fields, isField := fieldHints[lw]
		switch {
		case isRecord || isField:
			p.hints = append(p.hints, hint{word: lw, tools: tools, fields: fields, clause: clause})
			fallback = append(fallback, w)
		case stopwords[lw] || utf8.RuneCountInString(w) < 2 && !unicode.IsDigit([]rune(w)[0]):
			p.ignored = append(p.ignored, w)
			fallback = append(fallback, w)
		default:
			add(w)
		}
		if strings.HasSuffix(t, ",") || strings.HasSuffix(t, ";") {
			clause++
		}
	}
	if len(p.terms) == 0 {
		// Nothing but hints and filler: search for those.
		for _, w := range fallback {
			add(w)
		}
	}
	p.expand()
	return p
}

func (p plan) fieldWords() []string {
	var out []string
	for _, h := range p.hints {
		out = append(out, h.fields...)
	}
	return out
}

// split adds the pieces of term i, a reference joined by #, /, @ or :
// (owner/repo#123, service@version), as terms of their own (up to
// MaxQueryTerms in all). A hyphenated name stays whole: its words
// alone are other records' words.
func (p *plan) split(i int) {
	t := p.terms[i]
	if strings.ContainsAny(t.raw, " \t") {
		return // a phrase is meant as written
	}
	words := strings.FieldsFunc(t.raw, func(r rune) bool { return r == '#' || r == '/' || r == '@' || r == ':' })
	for k, w := range words {
		words[k] = trimTerm(w)
	}
	if len(words) < 2 {
		return
	}
	have := map[string]bool{}
	for _, o := range p.terms {
		have[asciiLower(o.raw)] = true
	}
	for _, w := range words {
		if lw := asciiLower(w); w != "" && !have[lw] && !stopwords[lw] && len(p.terms) < MaxQueryTerms {
			have[lw] = true
			p.terms = append(p.terms, planTerm{raw: w, clause: t.clause})
		}
	}
}
