package heldoutcorpus

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Ident is one identifier in the text it stands in: none may be
// redacted, or a search for it finds nothing.
type Ident struct {
	Kind, Item, Text string
}

// IdentsPerSeed is how many identifiers Identifiers draws from a seed.
const IdentsPerSeed = 240

type identKind struct {
	name string
	gen  func(r *rand.Rand) string
	// ctx are the kind's own places (%s is the item); the shared prose,
	// JSON and log places are used besides, unless code is set.
	ctx  []string
	code bool
}

var upperWords = strings.Fields("PLUTONIUM KUMQUAT TANGERINE OBSIDIAN MARZIPAN HALIBUT JUNIPER SAFFRON TUNGSTEN QUINCE " +
	"WALRUS BASALT CINNABAR NUTMEG PAPRIKA GRANITE MOLYBDENUM PERSIMMON ZIRCON LYCHEE")

func dashedID(r *rand.Rand) string {
	if r.IntN(8) == 0 {
		return "HELDOUT-END-FACT-ZQX7781-PLUTONIUM-KUMQUAT"
	}
	return fmt.Sprintf("%s-%s-%s%s-%s-%s", pick(r, "HELDOUT", "RECALL", "PROBE", "CANARY", "MEMO", "FACT"),
		pick(r, "END-FACT", "END-NOTE", "START-FACT", "END-NOTE-B", "MID-FACT"), rs(r, "ABCDEFGHJKLMNPQRSTUVWXYZ", 3), rs(r, digits, 4),
		pick(r, upperWords...), pick(r, upperWords...))
}

func uuidV1(r *rand.Rand) string {
	return rs(r, lowhex, 8) + "-" + rs(r, lowhex, 4) + "-1" + rs(r, lowhex, 3) + "-" + pick(r, "8", "9", "a", "b") + rs(r, lowhex, 3) + "-" + rs(r, lowhex, 12)
}

// uuidV7 starts with a millisecond time stamp of late 2026.
func uuidV7(r *rand.Rand) string {
	ms := fmt.Sprintf("%012x", 1_790_000_000_000+r.Int64N(40_000_000_000))
	return ms[:8] + "-" + ms[8:] + "-7" + rs(r, lowhex, 3) + "-" + pick(r, "8", "9", "a", "b") + rs(r, lowhex, 3) + "-" + rs(r, lowhex, 12)
}

func podName(r *rand.Rand) string {
	return pick(r, "api", "web", "checkout", "auth-svc", "token-broker", "billing-worker") + "-" + rs(r, k8sSafe, 9+r.IntN(2)) + "-" + rs(r, k8sSafe, 5)
}

func semver(r *rand.Rand) string {
	v := fmt.Sprintf("%d.%d.%d", r.IntN(12), r.IntN(40), r.IntN(30))
	switch r.IntN(4) {
	case 0:
		return "v" + v
	case 1:
		return v + "-rc." + fmt.Sprint(1+r.IntN(5)) + "+build." + fmt.Sprint(r.IntN(900))
	}
	return v
}

var idVars = strings.Fields("password token secret apiKey api_key accessToken clientSecret secretKey authToken privateKey passphrase credentials")

// codeAssign is an assignment whose value is an identifier or a lookup,
// never a literal.
func codeAssign(r *rand.Rand) string {
	v := pick(r, idVars...)
	up := strings.ToUpper(strings.ReplaceAll(v, "Key", "_KEY"))
	return pick(r,
		"password: password,", "token = token", "secret: this.secret", "apiKey: apiKey", `password=os.Getenv("PASSWORD")`,
		v+": "+v+",", v+" = "+v, v+": this."+v, "self."+v+" = "+v, v+" := cfg."+strings.ToUpper(v[:1])+v[1:],
		v+"="+`os.Getenv("`+up+`")`, v+" = process.env."+up, v+" = settings."+up, `"`+v+`": user.`+v+",",
		v+": config."+v+" ?? null,", "const { "+v+" } = req.body;", v+": params["+`"`+v+`"],`)
}

var identKinds = []identKind{
	{name: "jira-key", gen: func(r *rand.Rand) string {
		return rs(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZ", 2+r.IntN(4)) + "-" + fmt.Sprint(1+r.IntN(99999))
	}, ctx: []string{"Fixed in %s; see the linked incident.", `{"issue": {"key": "%s", "status": "In Progress"}}`}},
	{name: "dashed-upper-id", gen: dashedID, ctx: []string{"Remember this fact: %s.", `{"fact": "%s", "source": "notes"}`, "note %s saved"}},
	{name: "uuid-v1", gen: uuidV1},
	{name: "uuid-v4", gen: func(r *rand.Rand) string { return uuidHex(r, '4') }},
	{name: "uuid-v7", gen: uuidV7},
	{name: "git-sha-7", gen: func(r *rand.Rand) string { return rs(r, lowhex, 7) }, ctx: []string{"commit %s", "git checkout %s", "fixed in %s (HEAD -> main)"}},
	{name: "git-sha-12", gen: func(r *rand.Rand) string { return rs(r, lowhex, 12) }, ctx: []string{"commit %s", "git revert %s", "Merge %s into release"}},
	{name: "git-sha-40", gen: func(r *rand.Rand) string { return rs(r, lowhex, 40) }, ctx: []string{"commit %s\nAuthor: Dana Kim <dana@example.com>", "git cherry-pick %s", `{"sha": "%s", "verified": true}`}},
	{name: "traceparent", gen: func(r *rand.Rand) string { return "00-" + rs(r, lowhex, 32) + "-" + rs(r, lowhex, 16) + "-01" },
		ctx: []string{"traceparent: %s", `{"headers": {"traceparent": "%s"}}`}},
	{name: "trace-id", gen: func(r *rand.Rand) string { return rs(r, lowhex, 32) }, ctx: []string{`{"trace_id": "%s", "service": "auth-svc"}`, "trace_id=%s span_id=0af7651916cd43dd"}},
	{name: "request-id", gen: func(r *rand.Rand) string { return "req_" + rs(r, alnum, 24) }, ctx: []string{`{"request_id": "%s"}`, "request failed (request id %s)"}},
	{name: "x-request-id", gen: func(r *rand.Rand) string { return pick(r, uuidHex(r, '4'), rs(r, lowhex, 32)) }, ctx: []string{"X-Request-Id: %s", `{"headers": {"x-request-id": "%s"}}`}},
	{name: "pod-name", gen: podName, ctx: []string{"kubectl logs %s -n prod", `{"pod": "%s", "phase": "Running"}`}},
	{name: "container-id", gen: func(r *rand.Rand) string { return rs(r, lowhex, 64) }, ctx: []string{"containerID: containerd://%s", `{"Id": "%s", "State": "running"}`, "docker inspect %s"}},
	{name: "container-short-id", gen: func(r *rand.Rand) string { return rs(r, lowhex, 12) }, ctx: []string{"%s   nginx:1.27   \"/docker-entrypoint.…\"   Up 3 hours", "docker logs %s"}},
	{name: "sentry-event-id", gen: func(r *rand.Rand) string { return rs(r, lowhex, 32) }, ctx: []string{`{"event_id": "%s", "level": "error"}`, "Sentry event %s captured"}},
	{name: "datadog-monitor-id", gen: func(r *rand.Rand) string { return fmt.Sprint(10_000_000 + r.IntN(190_000_000)) }, ctx: []string{`{"monitor_id": %s, "status": "Alert"}`, "Datadog monitor %s triggered"}},
	{name: "semver", gen: semver, ctx: []string{"upgraded to %s", `{"version": "%s"}`}},
	{name: "iso-date", gen: func(r *rand.Rand) string {
		return fmt.Sprintf("2026-%02d-%02dT%02d:%02d:%02d.%03dZ", 1+r.IntN(12), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(1000))
	}, ctx: []string{`{"created_at": "%s"}`, "expires %s"}},
	{name: "code-assignment", gen: codeAssign, code: true, ctx: []string{
		"function login(user) {\n  return api.post('/session', {\n    %s\n  });\n}",
		"    # read at start-up\n    %s\n    return cls(**kwargs)",
		"@@ -12,7 +12,7 @@\n-\t// TODO\n+\t%s\n \treturn nil",
		`{"content": [{"type": "text", "text": "  12\t  %s\n  13\t}"}]}`,
	}},
}

var identShared = []string{
	"In the incident timeline, %s shows up twice before the rollback.",
	`{"id": "%s", "kind": "record", "ok": true}`,
	"2026-11-03T10:15:22.481Z INFO handled %s in 34ms",
	"level=warn msg=\"retrying\" ref=%s attempt=2",
}

// Identifiers draws IdentsPerSeed identifiers of every kind in turn,
// each in a place picked by the seed.
func Identifiers(seed uint64) []Ident {
	r := rand.New(rand.NewPCG(seed, 0x1de27))
	out := make([]Ident, 0, IdentsPerSeed)
	for i := 0; i < IdentsPerSeed; i++ {
		k := identKinds[i%len(identKinds)]
		item := k.gen(r)
		places := k.ctx
		if !k.code {
			places = append(append([]string(nil), k.ctx...), identShared...)
		}
		place := pick(r, places...)
		text := item
		if strings.HasPrefix(place, `{"content"`) {
			text = jsonEsc(item)
		} else if strings.HasPrefix(place, "{") && strings.Contains(place, `"%s"`) {
			text = jsonEsc(item)
		}
		out = append(out, Ident{Kind: k.name, Item: item, Text: fmt.Sprintf(place, text)})
	}
	return out
}

// IdentKinds counts the kinds of identifier.
func IdentKinds() int { return len(identKinds) }
