package retrievalcorpus

import (
	"fmt"
	"strings"
)

// Stories and their records.
const nStories = 72

func (g *gen) stories(w *world) {
	for i := range nStories {
		s := g.newStory(w, i)
		w.stories = append(w.stories, s)
		g.storyRecords(w, s)
	}
}

func (g *gen) storyRecords(w *world, s *story) {
	fetches := 1 + g.intn(2)
	for f := range fetches {
		g.jiraIssue(w, s, f == fetches-1 && fetches > 1)
	}
	for range 1 + g.intn(2) {
		g.sentryIssue(s)
	}
	g.pullRequest(s)
	if g.chance(0.7) {
		g.incident(s)
	}
	for range 1 + g.intn(2) {
		g.loki(s.Svc.Name, g.lokiSize(), s)
	}
	if g.chance(0.6) {
		g.runbook(s.Svc, s.Sym, s)
	}
	if g.chance(0.5) {
		g.grafana(s.Svc, s)
	}
	w.tickets = append(w.tickets, ticket{s.Jira, s.summary(), "In Progress", s.Assignee})
}

func (s *story) summary() string {
	return strings.ToUpper(s.Svc.Say[:1]) + s.Svc.Say[1:] + " " + s.Sym.Say + " " + s.Trig.Say
}

// lokiSize is the size of a log dump: mostly tens of KB, some hundreds,
// a few several MiB.
func (g *gen) lokiSize() int {
	switch r := g.intn(100); {
	case r < 6:
		return g.between(2<<20, 5<<20)
	case r < 25:
		return g.between(150<<10, 900<<10)
	default:
		return g.between(4<<10, 60<<10)
	}
}

// jiraIssue is mcp-atlassian's jira_get_issue: indented JSON with the
// description's newlines escaped. done is a later fetch after the fix.
func (g *gen) jiraIssue(w *world, s *story, done bool) {
	related := w.lookalike(g, s.Svc.Project+"-", atoi(s.Jira[strings.IndexByte(s.Jira, '-')+1:]))
	desc := fmt.Sprintf("h3. What happens\n%s %s %s.\n\nError seen in production:\n{code}\n%s\n{code}\n\ntrace_id: %s\n\nh3. Notes\n%s\n\nRelated to %s.",
		s.Svc.Say, s.Sym.Say, s.Trig.Say, s.Error, s.Trace, g.paragraph(g.between(2, 6)), or(related, "no other ticket"))
	comments := []map[string]any{}
	for range g.between(1, 8) {
		comments = append(comments, map[string]any{"author": map[string]string{"displayName": pick(g, people)}, "created": g.stamp(), "body": g.paragraph(g.between(1, 4))})
	}
	comments = append(comments, map[string]any{"author": map[string]string{"displayName": s.Assignee}, "created": g.stamp(),
		"body": "Root cause: " + s.Cause + ". Plan: " + s.Fix + "."})
	status := "In Progress"
	if done {
		status = "Done"
		comments = append(comments, map[string]any{"author": map[string]string{"displayName": s.Merger}, "created": g.stamp(),
			"body": fmt.Sprintf("Fixed by %s#%d, shipped in %s.", s.Repo, s.PR, s.Release)})
	}
	issue := map[string]any{"key": s.Jira, "id": fmt.Sprint(g.between(10000, 99999)), "self": "https://shopco.atlassian.net/rest/api/2/issue/" + s.Jira,
		"fields": map[string]any{
			"summary": s.summary(), "status": map[string]string{"name": status}, "issuetype": map[string]string{"name": "Bug"},
			"priority": map[string]string{"name": pick(g, []string{"High", "Highest", "Medium"})},
			"assignee": map[string]string{"displayName": s.Assignee, "emailAddress": login(s.Assignee) + "@shopco.example"},
			"reporter": map[string]string{"displayName": pick(g, people)}, "labels": []string{s.Svc.Name, s.Sym.Name, "production"},
			"components": []map[string]string{{"name": s.Svc.Name}}, "fixVersions": []map[string]string{{"name": s.Release}},
			"created": g.stamp(), "updated": g.stamp(), "description": desc, "comment": map[string]any{"comments": comments, "total": len(comments)},
		}}
	g.add("jira-issue", "jira", "jira_get_issue", s.Jira, map[string]any{"issue_key": s.Jira}, structured(issue, true),
		Fact{s.Jira + "/summary", s.summary()}, Fact{s.Jira + "/assignee", s.Assignee},
		Fact{s.Jira + "/fixVersion", s.Release}, Fact{s.Jira + "/cause", s.Cause}, Fact{s.Jira + "/error", s.Error},
		Fact{"trace/" + s.Trace, s.Error})
}

// sentryIssue is the Sentry MCP server's get_issue_details: markdown.
func (g *gen) sentryIssue(s *story) {
	culprit := fmt.Sprintf("%s/internal/%s/%s.go", s.Svc.Name, pick(g, []string{"handler", "store", "client", "worker"}), pick(g, []string{"capture", "reserve", "quote", "score", "render", "apply", "sync"}))
	first := strings.TrimPrefix(s.Release, s.Svc.Name+" ")
	var b strings.Builder
	fmt.Fprintf(&b, "# Issue %s in **shopco**\n\n**Description**: %s\n**Culprit**: %s\n**First Seen**: %s\n**Last Seen**: %s\n**First Release**: %s\n**Occurrences**: %d\n**Users Impacted**: %d\n**Status**: unresolved\n**Assigned To**: %s\n**Platform**: go\n**Trace ID**: %s\n\n",
		s.Sentry, s.Error, culprit, g.stamp(), g.stamp(), first, g.between(40, 90000), g.between(3, 5000), s.Assignee, s.Trace)
	b.WriteString("## Stacktrace\n\n```\n" + s.Error + "\n\n")
	for range g.between(8, 40) {
		fmt.Fprintf(&b, "    at %s.%s (%s/%s.go:%d)\n", pick(g, []string{"main", "http", "store", "worker", "client", "sql"}), pick(g, []string{"Serve", "Handle", "Exec", "Query", "Do", "Run", "Apply", "Next"}), s.Svc.Name, pick(g, []string{"internal/handler", "internal/store", "vendor/net/http", "internal/retry"}), g.between(10, 900))
	}
	b.WriteString("```\n\n## Breadcrumbs\n\n")
	for range g.between(5, 60) {
		fmt.Fprintf(&b, "- %s %s\n", g.stamp(), g.logLine(s.Svc.Name))
	}
	fmt.Fprintf(&b, "\n## Tags\n\n- environment: production\n- release: %s\n- server_name: %s-%s\n\n# Using this information\n\n- Use get_event_attachment to see attachments.\n", first, s.Svc.Name, g.hex(5))
	g.add("sentry-issue", "sentry", "get_issue_details", s.Sentry, map[string]any{"organizationSlug": "shopco", "issueId": s.Sentry}, textResult(b.String()),
		Fact{s.Sentry + "/title", s.Error}, Fact{s.Sentry + "/firstRelease", first}, Fact{s.Sentry + "/culprit", culprit},
		Fact{s.Jira + "/error", s.Error}, Fact{"trace/" + s.Trace, s.Error})
}

// pullRequest is github-mcp-server's get_pull_request: compact JSON.
func (g *gen) pullRequest(s *story) {
	title := fmt.Sprintf("%s: %s", s.Svc.Name, s.Fix)
	body := fmt.Sprintf("Fixes %s.\r\n\r\n## Root cause\r\n%s.\r\n\r\n## Change\r\n- %s\r\n- add a regression test\r\n\r\n## Testing\r\n%s",
		s.Jira, strings.ToUpper(s.Cause[:1])+s.Cause[1:], s.Fix, g.paragraph(g.between(1, 3)))
	g.addPR(s.Repo, s.PR, title, body, login(s.Author), login(s.Reviewer), login(s.Merger), s.Branch,
		Fact{prName(s.Repo, s.PR) + "/title", title}, Fact{prName(s.Repo, s.PR) + "/author", login(s.Author)},
		Fact{prName(s.Repo, s.PR) + "/reviewer", login(s.Reviewer)}, Fact{prName(s.Repo, s.PR) + "/merger", login(s.Merger)},
		Fact{prName(s.Repo, s.PR) + "/branch", s.Branch})
}

func prName(repo string, n int) string { return fmt.Sprintf("%s#%d", repo, n) }

func (g *gen) addPR(repo string, n int, title, body, author, reviewer, merger, branch string, facts ...Fact) {
	files := []map[string]any{}
	for range g.between(1, 25) {
		files = append(files, map[string]any{"filename": fmt.Sprintf("internal/%s/%s.go", pick(g, []string{"handler", "store", "client", "retry", "worker"}), g.hex(4)),
			"status": "modified", "additions": g.between(1, 200), "deletions": g.between(0, 90)})
	}
	pr := map[string]any{"number": n, "title": title, "body": body, "state": "closed", "merged": true,
		"html_url": fmt.Sprintf("https://github.com/%s/pull/%d", repo, n), "user": map[string]string{"login": author},
		"merged_by": map[string]string{"login": merger}, "requested_reviewers": []map[string]string{{"login": reviewer}},
		"head": map[string]string{"ref": branch, "sha": g.hex(40)}, "base": map[string]string{"ref": "main", "sha": g.hex(40)},
		"merge_commit_sha": g.hex(40), "created_at": g.stamp(), "merged_at": g.stamp(), "comments": g.between(0, 30),
		"reviews": []map[string]any{{"user": map[string]string{"login": reviewer}, "state": "APPROVED", "body": pick(g, chatter)}},
		"files":   files, "additions": g.between(5, 900), "deletions": g.between(0, 400)}
	g.add("github-pr", "github", "get_pull_request", prName(repo, n), map[string]any{"owner": "shopco", "repo": strings.TrimPrefix(repo, "shopco/"), "pullNumber": n},
		structured(pr, false), facts...)
}

// incident is an incident tool's get_incident: its timeline.
func (g *gen) incident(s *story) {
	h, m := g.between(0, 20), g.between(0, 40)
	at := func(d int) string { return fmt.Sprintf("2026-11-%02dT%02d:%02d:00Z", 14, h+(m+d)/60, (m+d)%60) }
	mitigation := pick(g, []string{"rolled back " + s.Svc.Name + " to the previous release", "disabled the feature flag", "scaled " + s.Svc.Name + " to 12 replicas", "failed over to the secondary database", "paused the backfill job"})
	timeline := []map[string]string{
		{"at": at(0), "text": "Alert fired: " + s.Svc.Say + " error rate above 5% " + s.Trig.Say},
		{"at": at(3), "text": s.Lead + " declared the incident and took the lead"},
		{"at": at(9), "text": "Errors in logs: " + s.Error},
		{"at": at(21), "text": "Mitigation: " + mitigation},
		{"at": at(40), "text": "Root cause identified: " + s.Cause},
		{"at": at(55), "text": "Resolved; follow-up in " + s.Jira},
	}
	for range g.between(2, 12) {
		timeline = append(timeline, map[string]string{"at": at(g.between(1, 50)), "text": pick(g, chatter)})
	}
	name := strings.ToUpper(s.Svc.Say[:1]) + s.Svc.Say[1:] + " " + s.Sym.Say
	inc := map[string]any{"incident": map[string]any{"reference": s.Incident, "name": name,
		"severity": pick(g, []string{"SEV1", "SEV2", "SEV3"}), "status": "resolved", "incident_lead": map[string]string{"name": s.Lead},
		"summary": fmt.Sprintf("%s %s %s. Root cause: %s.", s.Svc.Say, s.Sym.Say, s.Trig.Say, s.Cause), "timeline": timeline}}
	g.add("incident", "incidentio", "get_incident", s.Incident, map[string]any{"id": s.Incident}, structured(inc, true),
		Fact{s.Incident + "/name", name}, Fact{s.Incident + "/lead", s.Lead}, Fact{s.Incident + "/mitigation", mitigation}, Fact{s.Jira + "/cause", s.Cause},
		Fact{s.Jira + "/error", s.Error})
}

func atoi(s string) int {
	n := 0
	fmt.Sscanf(s, "%d", &n)
	return n
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
