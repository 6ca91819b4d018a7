package retrievalcorpus

import (
	"fmt"
	"strings"
)

// noiseTicket is a ticket no failure is about: chores, features, flaky
// tests. Desc is how an agent would name it.
type noiseTicket struct {
	Key, Summary, Assignee, Desc, Status string
}

// option is a library setting and its default, as its docs give them.
type option struct{ Lib, Name, Default, What, Desc string }

var libOptions = map[string][][3]string{ // name, what it sets, agent's words
	"pgx":       {{"MaxConns", "the largest number of connections the pool opens", "pool size"}, {"MaxConnIdleTime", "how long an idle connection is kept", "idle connection timeout"}, {"HealthCheckPeriod", "how often idle connections are checked", "health check interval"}, {"MaxConnLifetime", "how long a connection lives before it is closed", "connection max age"}, {"ConnectTimeout", "how long dialing may take", "dial timeout"}},
	"go-redis":  {{"PoolSize", "socket connections per CPU", "pool size"}, {"ReadTimeout", "the deadline for socket reads", "read timeout"}, {"MaxRetries", "how many times a command is retried", "retry count"}, {"PoolTimeout", "how long a client waits for a free connection", "wait for a free connection"}},
	"grpc-go":   {{"MaxRecvMsgSize", "the largest message the server accepts", "max receive message size"}, {"KeepaliveTime", "the ping interval on idle transports", "keepalive ping interval"}, {"MaxConcurrentStreams", "streams per client connection", "concurrent streams limit"}},
	"kafka-go":  {{"CommitInterval", "how often offsets are committed", "offset commit interval"}, {"MaxWait", "how long a fetch waits for data", "fetch wait"}, {"SessionTimeout", "how long before a silent member is evicted", "consumer session timeout"}, {"BatchTimeout", "how long the writer waits to fill a batch", "writer batch timeout"}},
	"otel":      {{"BatchTimeout", "the delay before a span batch is exported", "span batch delay"}, {"MaxQueueSize", "spans buffered before dropping", "span queue size"}, {"ExportTimeout", "how long one export may take", "export timeout"}},
	"stripe-go": {{"MaxNetworkRetries", "retries of a failed request", "network retries"}, {"HTTPClient.Timeout", "the HTTP client's timeout", "request timeout"}},
	"zap":       {{"Sampling.Thereafter", "how many entries are kept after the first each second", "log sampling"}, {"DisableStacktrace", "whether stack traces are left out", "stack traces in logs"}},
	"chi":       {{"middleware.Timeout", "the deadline set on each request's context", "request deadline middleware"}, {"middleware.Throttle", "concurrent requests allowed", "concurrency throttle"}},
}

var defaults = []string{"30s", "5m", "1h", "10s", "250ms", "4", "10", "16", "100", "1000", "2", "false", "true", "64 MiB", "4 MiB", "2 hours", "45s", "500"}

func (g *gen) noise(w *world) {
	for _, s := range w.stories {
		if g.chance(0.5) {
			if k := w.lookalike(g, s.Svc.Project+"-", atoi(s.Jira[strings.IndexByte(s.Jira, '-')+1:])); k != "" {
				g.noiseTicket(w, k)
			}
		}
		if g.chance(0.4) {
			if n := w.lookalike(g, s.Repo+"#", s.PR); n != "" {
				g.noisePR(w, s.Repo, atoi(n[strings.IndexByte(n, '#')+1:]))
			}
		}
	}
	for range 260 {
		svc := pick(g, services)
		g.noiseTicket(w, w.id(func() string { return fmt.Sprintf("%s-%d", svc.Project, g.between(10, 9999)) }))
	}
	for range 150 {
		svc := pick(g, services)
		repo := "shopco/" + svc.Name
		id := w.id(func() string { return fmt.Sprintf("%s#%d", repo, g.between(100, 9999)) })
		g.noisePR(w, repo, atoi(id[strings.IndexByte(id, '#')+1:]))
	}
	g.noiseRest(w)
}

func (g *gen) noiseRest(w *world) {
	for range 70 {
		g.jiraSearch(w)
	}
	for range 110 {
		g.noiseSentry(w)
	}
	for range 90 {
		g.loki(pick(g, services).Name, g.lokiSize(), nil)
	}
	for range 3 {
		g.loki(pick(g, services).Name, g.between(3<<20, 5<<20), nil)
	}
	g.docs(w)
	for range 40 {
		g.runbook(pick(g, services), pick(g, symptoms), nil)
	}
	for range 60 {
		g.grafana(pick(g, services), nil)
	}
	for range 60 {
		g.tiny(w)
	}
}

// noiseTicket is a chore, feature or flaky-test ticket.
func (g *gen) noiseTicket(w *world, key string) {
	svc := services[0]
	for _, s := range services {
		if strings.HasPrefix(key, s.Project+"-") {
			svc = s
		}
	}
	var sum, desc string
	for {
		switch g.intn(3) {
		case 0:
			t := pick(g, tests)
			sum, desc = fmt.Sprintf("Flaky %s in %s CI", t, svc.Name), "flaky "+splitCamel(strings.TrimPrefix(t, "Test"))+" test in "+svc.Name
		case 1:
			v, o := pick(g, verbs), pick(g, objects)
			sum, desc = fmt.Sprintf("%s %s in %s", strings.ToUpper(v[:1])+v[1:], o, svc.Name), v+" "+o+" work for "+svc.Name
		default:
			l := pick(g, libs)
			sum, desc = fmt.Sprintf("Upgrade %s to v%d.%d in %s", l, g.between(1, 9), g.between(0, 30), svc.Name), l+" upgrade in "+svc.Name
		}
		if !w.used["summary:"+desc] {
			w.used["summary:"+desc] = true
			break
		}
	}
	t := noiseTicket{Key: key, Summary: sum, Assignee: pick(g, people), Desc: desc, Status: pick(g, []string{"To Do", "In Progress", "In Review", "Done"})}
	w.noise = append(w.noise, t)
	w.tickets = append(w.tickets, ticket{t.Key, t.Summary, t.Status, t.Assignee})
	comments := []map[string]any{}
	for range g.between(0, 6) {
		comments = append(comments, map[string]any{"author": map[string]string{"displayName": pick(g, people)}, "created": g.stamp(), "body": g.paragraph(g.between(1, 3))})
	}
	issue := map[string]any{"key": key, "fields": map[string]any{"summary": sum, "status": map[string]string{"name": t.Status},
		"issuetype": map[string]string{"name": pick(g, []string{"Task", "Story", "Bug"})}, "assignee": map[string]string{"displayName": t.Assignee},
		"reporter": map[string]string{"displayName": pick(g, people)}, "labels": []string{svc.Name}, "created": g.stamp(),
		"description": g.paragraph(g.between(2, 10)) + "\n\n" + g.paragraph(g.between(1, 5)), "comment": map[string]any{"comments": comments}}}
	for range 1 + boolInt(g.chance(0.15)) {
		g.add("jira-issue", "jira", "jira_get_issue", key, map[string]any{"issue_key": key}, structured(issue, true),
			Fact{key + "/summary", sum}, Fact{key + "/assignee", t.Assignee})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// splitCamel turns "LedgerMigration" into "ledger migration".
func splitCamel(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte(' ')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (g *gen) noisePR(w *world, repo string, n int) {
	var title string
	switch g.intn(3) {
	case 0:
		title = fmt.Sprintf("Bump %s from v1.%d.0 to v1.%d.1", pick(g, libs), g.between(1, 20), g.between(21, 40))
	case 1:
		title = fmt.Sprintf("%s %s", strings.ToUpper(pick(g, verbs)[:1])+pick(g, verbs)[1:], pick(g, objects))
	default:
		title = fmt.Sprintf("Stabilise %s", pick(g, tests))
	}
	author, reviewer := pick(g, people), pick(g, people)
	body := g.paragraph(g.between(1, 6))
	if g.chance(0.5) && len(w.tickets) > 0 {
		body = "Related to " + pick(g, w.tickets).Key + ".\r\n\r\n" + body
	}
	g.addPR(repo, n, title, body, login(author), login(reviewer), login(pick(g, people)), fmt.Sprintf("%s/%s", login(author), g.hex(6)),
		Fact{prName(repo, n) + "/title", title}, Fact{prName(repo, n) + "/author", login(author)})
}
