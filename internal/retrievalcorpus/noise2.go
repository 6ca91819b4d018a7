package retrievalcorpus

import (
	"fmt"
	"sort"
	"strings"
)

// jiraSearch is jira_search: many tickets' keys, summaries and statuses.
func (g *gen) jiraSearch(w *world) {
	svc := pick(g, services)
	jql := fmt.Sprintf("project = %s AND status != Done ORDER BY updated DESC", svc.Project)
	var list []ticket
	for _, t := range w.tickets {
		if strings.HasPrefix(t.Key, svc.Project+"-") || g.chance(0.03) {
			list = append(list, t)
		}
	}
	g.r.Shuffle(len(list), func(i, j int) { list[i], list[j] = list[j], list[i] })
	list = list[:min(len(list), g.between(15, 60))]
	issues := []map[string]any{}
	for _, t := range list {
		issues = append(issues, map[string]any{"key": t.Key, "fields": map[string]any{"summary": t.Summary,
			"status": map[string]string{"name": t.Status}, "assignee": map[string]string{"displayName": t.Assignee}}})
	}
	res := map[string]any{"total": len(issues), "start_at": 0, "max_results": 50, "issues": issues}
	g.add("jira-search", "jira", "jira_search", svc.Project, map[string]any{"jql": jql, "limit": 50}, structured(res, true))
}

// noiseSentry is an issue no story is about: the same error shapes,
// other values.
func (g *gen) noiseSentry(w *world) {
	svc, sym := pick(g, services), pick(g, symptoms)
	short := w.id(func() string { return svc.Sentry + "-" + strings.ToUpper(g.hex(g.between(2, 3))) })
	s := &story{Svc: svc, Sym: sym, Error: sym.Error(g, svc), Sentry: short, Jira: "noise-" + short, Trace: g.hex(32),
		Assignee: pick(g, people), Release: fmt.Sprintf("%s v2.%d.%d", svc.Name, g.between(3, 19), g.between(1, 9))}
	n := len(g.recs)
	g.sentryIssue(s)
	r := &g.recs[n]
	r.Facts = r.Facts[:3] // no story
}

// docs is Context7's get-library-docs: snippets of a library's docs on
// a topic, plain text. Options keep their default across records.
func (g *gen) docs(w *world) {
	names := make([]string, 0, len(libOptions))
	for l := range libOptions {
		names = append(names, l)
	}
	sort.Strings(names)
	for _, l := range names {
		for _, o := range libOptions[l] {
			w.options = append(w.options, option{Lib: l, Name: o[0], What: o[1], Desc: o[2], Default: pick(g, defaults)})
		}
	}
	topics := []string{"configuration", "connection pooling", "timeouts", "retries", "observability", "getting started", "migration guide", "performance tuning"}
	for range 130 {
		lib := pick(g, names)
		topic := pick(g, topics)
		var b strings.Builder
		var facts []Fact
		for range g.between(3, 25) {
			if g.chance(0.5) {
				o := pick(g, w.options)
				for o.Lib != lib {
					o = pick(g, w.options)
				}
				g.docOption(&b, o)
				facts = append(facts, Fact{o.Lib + "/" + o.Name, "default is " + o.Default})
				continue
			}
			g.docSnippet(&b, lib, topic)
		}
		g.add("docs", "context7", "get-library-docs", lib+"/"+topic, map[string]any{"context7CompatibleLibraryID": "/" + lib + "/docs", "topic": topic, "tokens": 10000},
			textResult(b.String()), facts...)
	}
}

func (g *gen) docOption(b *strings.Builder, o option) {
	fmt.Fprintf(b, "TITLE: Setting %s in %s\nDESCRIPTION: %s controls %s. The default is %s. %s\nSOURCE: https://github.com/%s/%s/blob/main/docs/config.md#L%d\n\nLANGUAGE: go\nCODE:\n```\ncfg.%s = %s // %s\n```\n\n----------------------------------------\n\n",
		o.Name, o.Lib, o.Name, o.What, o.Default, g.sentence(), o.Lib, o.Lib, g.between(10, 900), o.Name, o.Default, o.What)
}

func (g *gen) docSnippet(b *strings.Builder, lib, topic string) {
	fn := pick(g, []string{"New", "Connect", "Close", "Ping", "WithContext", "Begin", "Exec", "Subscribe", "Flush", "Use"})
	fmt.Fprintf(b, "TITLE: %s: %s with %s\nDESCRIPTION: Shows how to call %s.%s when working on %s. %s %s\nSOURCE: https://github.com/%s/%s/blob/main/README.md#L%d\n\nLANGUAGE: go\nCODE:\n```\nctx, cancel := context.WithTimeout(context.Background(), %ds)\ndefer cancel()\nres, err := client.%s(ctx)\nif err != nil {\n\treturn fmt.Errorf(\"%s: %%w\", err)\n}\n```\n\n----------------------------------------\n\n",
		lib, topic, fn, lib, fn, topic, g.sentence(), g.sentence(), lib, lib, g.between(10, 900), g.between(1, 60), fn, strings.ToLower(fn))
}

// tiny is a small answer: a comment posted, a transition made.
func (g *gen) tiny(w *world) {
	t := pick(g, w.tickets)
	if g.chance(0.5) {
		res := map[string]any{"id": fmt.Sprint(g.between(100000, 999999)), "author": pick(g, people), "created": g.stamp(),
			"body": g.sentence(), "self": "https://shopco.atlassian.net/rest/api/2/issue/" + t.Key + "/comment"}
		g.add("jira-comment", "jira", "jira_add_comment", t.Key, map[string]any{"issue_key": t.Key, "comment": g.sentence()}, structured(res, true))
		return
	}
	res := map[string]any{"success": true, "issue_key": t.Key, "transition": pick(g, []string{"Start Progress", "Resolve", "Reopen", "Close"}),
		"message": "Transitioned " + t.Key + " (" + t.Summary + ")", "fields_updated": []string{"status", "resolution", "updated"}}
	g.add("jira-transition", "jira", "jira_transition_issue", t.Key, map[string]any{"issue_key": t.Key}, structured(res, true))
}
