package retrievalcorpus

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// loki is the Grafana MCP server's query_loki_logs: a JSON array of
// entries, each line logfmt with its quotes escaped. A story's error
// appears a few times somewhere past the head, with the story's trace.
func (g *gen) loki(svc string, size int, s *story) {
	var b strings.Builder
	b.Grow(size + 1024)
	b.WriteString("[")
	// The error goes in at byte offsets past the first eighth.
	var plant []int
	if s != nil {
		for range g.between(1, 3) {
			plant = append(plant, size/8+g.intn(size-size/8))
		}
		sort.Ints(plant)
	}
	start := Base.Add(g.dur())
	for i := 0; b.Len() < size; i++ {
		line, level := g.logLine(svc), "info"
		if len(plant) > 0 && b.Len() >= plant[0] {
			for len(plant) > 0 && b.Len() >= plant[0] {
				plant = plant[1:]
			}
			line, level = fmt.Sprintf(`level=error msg="%s" svc=%s trace_id=%s`, s.Error, svc, s.Trace), "error"
		}
		if i > 0 {
			b.WriteString(",")
		}
		// The entry as the server encodes it (fields in its order).
		fmt.Fprintf(&b, `{"timestamp":"%s","labels":{"app":"%s","namespace":"shop","level":"%s"},"line":"%s"}`,
			start.Add(msDur(i*37)).Format("2006-01-02T15:04:05.000Z07:00"), svc, level, jsonEscaper.Replace(line))
	}
	b.WriteString("]")
	query := fmt.Sprintf(`{app="%s"}`, svc)
	if g.chance(0.4) {
		query += ` |= "level=error"`
	}
	subject := svc
	var facts []Fact
	if s != nil {
		facts = []Fact{{s.Jira + "/error", s.Error}, {"trace/" + s.Trace, s.Error}}
		subject = svc + "@" + s.Jira
	}
	g.add("loki", "grafana", "query_loki_logs", subject, map[string]any{"datasourceUid": "loki", "logql": query, "limit": size / 180},
		textResult(b.String()), facts...)
}

// runbook is the Confluence server's confluence_get_page: the page in
// JSON, its markdown body with escaped newlines.
func (g *gen) runbook(svc service, sym symptom, s *story) {
	cmd := pick(g, []string{
		fmt.Sprintf("kubectl -n shop rollout undo deployment/%s", svc.Name),
		fmt.Sprintf("kubectl -n shop scale deployment/%s --replicas=%d", svc.Name, g.between(6, 20)),
		fmt.Sprintf("psql -d shop -f /ops/sql/terminate_idle_%s.sql", svc.Table),
		fmt.Sprintf("flagctl set %s_v2 off --env production", strings.ReplaceAll(svc.Say, " ", "_")),
		fmt.Sprintf("kafka-consumer-groups --reset-offsets --group %s-consumers --to-latest --execute", svc.Name),
		fmt.Sprintf("cmctl renew %s-tls -n shop", svc.Name),
	})
	owner := pick(g, people)
	title := "Runbook: " + svc.Say + " " + sym.Say
	body := fmt.Sprintf("# %s\n\n## When this fires\nThe alert `%s_%s` pages the on-call when %s %s.\n\n## Checks\n1. Open the %s dashboard and compare error rate with the last deploy.\n2. %s\n3. Search the logs: `{app=\"%s\"} |= \"level=error\"`.\n\n## Mitigate\nRun:\n\n```\n%s\n```\n\n## Escalation\nEscalate to %s (#team-%s) if errors persist for 15 minutes.\n\n%s",
		title, strings.ReplaceAll(svc.Name, "-", "_"), sym.Name, svc.Say, sym.Say, svc.Name, g.paragraph(2), svc.Name, cmd, owner, svc.Name, g.paragraph(g.between(2, 8)))
	page := map[string]any{"id": fmt.Sprint(g.between(100000, 999999)), "title": title, "space": map[string]string{"key": "OPS"},
		"version": map[string]any{"number": g.between(1, 30), "by": map[string]string{"displayName": owner}},
		"body":    map[string]any{"storage": map[string]string{"value": body, "representation": "markdown"}}}
	name := "runbook/" + svc.Name + "/" + sym.Name
	g.add("runbook", "confluence", "confluence_get_page", svc.Name+"/"+sym.Name, map[string]any{"title": title, "space_key": "OPS"},
		jsonText(page, false), Fact{name + "/command", cmd}, Fact{name + "/escalation", owner})
}

// grafana is the Grafana server's query_prometheus: a range of samples,
// with an annotation naming the story's incident.
func (g *gen) grafana(svc service, s *story) {
	var samples [][2]any
	peak := fmt.Sprintf("%.1f%%", 5+g.r.Float64()*40)
	for i := range g.between(60, 600) {
		samples = append(samples, [2]any{1794560000 + i*60, fmt.Sprintf("%.4f", g.r.Float64()*0.02)})
	}
	ann := []map[string]string{}
	var facts []Fact
	if s != nil {
		ann = append(ann, map[string]string{"text": fmt.Sprintf("%s: %s error rate peaked at %s", s.Incident, svc.Say, peak)})
		facts = append(facts, Fact{s.Incident + "/peak", peak})
	}
	res := map[string]any{"status": "success", "data": map[string]any{"resultType": "matrix",
		"result": []map[string]any{{"metric": map[string]string{"__name__": "http_requests_error_ratio", "service": svc.Name}, "values": samples}}},
		"annotations": ann}
	subject := svc.Name
	if s != nil {
		subject += "@" + s.Incident
	}
	g.add("grafana", "grafana", "query_prometheus", subject, map[string]any{"expr": fmt.Sprintf(`sum(rate(http_requests_total{service="%s",code=~"5.."}[5m]))`, svc.Name)},
		structured(res, false), facts...)
}

func (g *gen) dur() time.Duration { return time.Duration(g.between(0, 13*24*3600)) * time.Second }

// jsonEscaper escapes what log lines hold (ASCII) for a JSON string.
var jsonEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

func msDur(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }
