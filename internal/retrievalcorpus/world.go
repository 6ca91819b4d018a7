package retrievalcorpus

import (
	"fmt"
	"strings"
)

// people work on the services; each has a login for GitHub.
var people = []string{
	"Priya Raman", "Tomasz Nowak", "Dana Kim", "Lucas Moreau", "Aisha Bello", "Kenji Watanabe",
	"Sofia Lindqvist", "Mateo Alvarez", "Grace Okafor", "Henrik Dahl", "Meera Iyer", "Owen Gallagher",
	"Yuki Tanaka", "Chloe Dubois", "Ravi Menon", "Elena Petrova", "Marcus Reid", "Fatima Zahra",
	"Jonas Becker", "Amara Nwosu", "Diego Santos", "Hannah Levi", "Arjun Kapoor", "Ingrid Solberg",
	"Noah Fischer", "Leila Haddad", "Samuel Osei", "Mia Kowalski", "Tariq Aziz", "Camille Laurent",
}

func login(name string) string {
	f := strings.Fields(strings.ToLower(name))
	return f[0][:1] + f[1]
}

// service is one component of the shop. Say is how its documents name
// what it does; Syn is how an agent might put it without those words.
type service struct {
	Name, Project, Sentry, Table, Say string
	Syn                               []string
}

var services = []service{
	{"checkout-api", "CHK", "CHECKOUT-API", "orders", "checkout", []string{"the buy button flow", "order placement", "the purchase step"}},
	{"payments-svc", "PAY", "PAYMENTS-SVC", "charges", "payments", []string{"card charging", "the billing backend", "taking money from cards"}},
	{"ledger-writer", "LED", "LEDGER-WRITER", "ledger_entries", "ledger", []string{"the accounting journal", "bookkeeping writes", "the books"}},
	{"inventory-sync", "INV", "INVENTORY-SYNC", "stock_levels", "inventory", []string{"stock counts", "warehouse quantities", "how many units we have"}},
	{"notify-worker", "NTF", "NOTIFY-WORKER", "outbox", "notifications", []string{"customer emails", "push alerts", "messages to shoppers"}},
	{"auth-gateway", "AUTH", "AUTH-GATEWAY", "sessions", "login", []string{"sign-in", "logging users on", "the identity layer"}},
	{"search-indexer", "SRCH", "SEARCH-INDEXER", "product_docs", "search index", []string{"product lookup", "catalog queries", "finding items"}},
	{"shipping-quotes", "SHIP", "SHIPPING-QUOTES", "rate_cards", "shipping rates", []string{"delivery pricing", "courier estimates", "postage costs"}},
	{"fraud-scorer", "FRD", "FRAUD-SCORER", "risk_scores", "fraud scoring", []string{"risk checks", "screening suspicious orders", "the anti-abuse model"}},
	{"invoice-renderer", "BIL", "INVOICE-RENDERER", "invoices", "invoice PDFs", []string{"bills we email", "receipt documents", "tax paperwork"}},
}

// symptom is how a failure shows. Say is the documents' wording, Syn an
// agent's; Error makes the exact error text of a story (unique per story
// through its arguments); Cause is the root-cause sentence.
type symptom struct {
	Name  string
	Say   string
	Syn   []string
	Error func(g *gen, s service) string
	Cause []string
}

var symptoms = []symptom{
	{"502", "returns 502 Bad Gateway", []string{"blows up with proxy errors", "keeps erroring at the edge"},
		func(g *gen, s service) string {
			return fmt.Sprintf("upstream %s:%d returned 502 Bad Gateway after %dms", s.Name, pick(g, []int{8080, 8443, 9090, 7001}), g.between(900, 4000))
		}, []string{"the upstream keepalive timeout was shorter than the load balancer idle timeout", "a readiness probe marked pods ready before the cache warmed"}},
	{"timeout", "requests time out", []string{"hangs until the client gives up", "never answers in time"},
		func(g *gen, s service) string {
			return fmt.Sprintf("context deadline exceeded while calling %s.%s (timeout=%ds)", s.Name, pick(g, []string{"Reserve", "Capture", "Quote", "Lookup", "Score", "Render"}), pick(g, []int{5, 10, 30}))
		}, []string{"a missing index made the lookup query scan the whole table", "retries multiplied load on an already saturated dependency"}},
	{"deadlock", "hits database deadlocks", []string{"has rows locking each other up", "stalls on contended writes"},
		func(g *gen, s service) string {
			return fmt.Sprintf("ERROR: deadlock detected on relation %s (pid %d)", s.Table, g.between(10000, 99999))
		}, []string{"two workers updated the same rows in opposite order", "a long transaction held row locks across an HTTP call"}},
	{"oom", "gets OOMKilled", []string{"runs out of RAM and gets restarted", "eats all its memory"},
		func(g *gen, s service) string {
			return fmt.Sprintf("container %s OOMKilled: memory limit %dMi exceeded (rss %dMi)", s.Name, pick(g, []int{256, 512, 1024}), g.between(1100, 3900))
		}, []string{"an unbounded in-memory cache grew with every tenant", "a batch job loaded the full result set instead of streaming it"}},
	{"undefined", "throws TypeError on undefined", []string{"crashes on a missing value", "dies reading a field that is not there"},
		func(g *gen, s service) string {
			return fmt.Sprintf("TypeError: Cannot read properties of undefined (reading '%s')", pick(g, []string{"amount", "currency", "sku", "address", "userId", "lineItems", "taxRate", "token"})+g.hex(2))
		}, []string{"the new API version omitted the field for guest users", "a partial response from the cache lacked the nested object"}},
	{"duplicate", "creates duplicate charges", []string{"bills people twice", "takes the money two times"},
		func(g *gen, s service) string {
			return fmt.Sprintf("duplicate charge rejected: idempotency key idem_%s reused for order %d", g.hex(10), g.between(100000, 999999))
		}, []string{"the retry path generated a fresh idempotency key on each attempt", "two consumers processed the same message after a rebalance"}},
	{"cert", "fails TLS with an expired certificate", []string{"handshake refused because the cert lapsed", "secure connection rejected after renewal was missed"},
		func(g *gen, s service) string {
			return fmt.Sprintf("x509: certificate has expired or is not yet valid: current time 2026-11-%02dT%02d:%02d:11Z is after 2026-11-%02dT00:00:00Z", g.between(10, 20), g.between(0, 23), g.between(0, 59), g.between(1, 9))
		}, []string{"cert-manager could not renew because the DNS challenge record was deleted", "the renewal cron ran in a namespace without the issuer"}},
	{"pool", "exhausts its connection pool", []string{"has no free database handles left", "waits forever for a db connection"},
		func(g *gen, s service) string {
			return fmt.Sprintf("pgxpool: acquire conn: connection pool exhausted (max_conns=%d, waiting=%d)", pick(g, []int{10, 20, 40}), g.between(50, 900))
		}, []string{"connections leaked when a handler returned early without releasing them", "the pool size was not raised when replicas were cut"}},
	{"ratelimit", "is rate limited by a vendor", []string{"gets throttled by the third party", "the provider pushes back on our call volume"},
		func(g *gen, s service) string {
			return fmt.Sprintf("429 Too Many Requests from api.%s.example (retry-after %ds, bucket %s)", pick(g, []string{"stripe", "adyen", "sendgrid", "easypost", "twilio", "avalara"}), g.between(2, 90), g.hex(6))
		}, []string{"a backfill job shared the production API key and its quota", "batching was disabled so every item made its own call"}},
	{"lag", "falls behind on its queue", []string{"has a growing backlog of unprocessed events", "is way behind on the topic"},
		func(g *gen, s service) string {
			return fmt.Sprintf("consumer group %s-consumers lag %d messages on topic %s.events partition %d", s.Name, g.between(50000, 900000), s.Table, g.between(0, 11))
		}, []string{"a poison message made the consumer retry forever", "the partition count was raised without adding consumers"}},
	{"panic", "panics with index out of range", []string{"crashes the Go process on a slice bound", "core dumps on an off-by-one"},
		func(g *gen, s service) string {
			n := g.between(2, 9)
			return fmt.Sprintf("panic: runtime error: index out of range [%d] with length %d (goroutine %d)", n, n, g.between(100, 9999))
		}, []string{"an empty cart reached code that assumed at least one line item", "the parser assumed every header had a value"}},
	{"stale", "serves stale cached data", []string{"keeps showing old numbers", "shows out-of-date values to users"},
		func(g *gen, s service) string {
			return fmt.Sprintf("cache %s:%s served entry %ds past ttl (generation %d)", s.Table, g.hex(6), g.between(300, 9000), g.between(10, 99))
		}, []string{"invalidation events were published before the transaction committed", "a clock skew on one node made entries look fresh"}},
}

// trigger is what preceded a failure.
type trigger struct{ Say, Syn string }

func triggers(g *gen, s service) []trigger {
	v := fmt.Sprintf("v2.%d.%d", g.between(3, 19), g.between(0, 9))
	return []trigger{
		{"after the rollout of " + s.Name + " " + v, "once the new build went out"},
		{"after upgrading pgx to v5." + fmt.Sprint(g.between(4, 7)), "after we bumped the postgres driver"},
		{"after enabling the " + strings.ReplaceAll(s.Say, " ", "_") + "_v2 feature flag", "after someone flipped the toggle on"},
		{fmt.Sprintf("after database migration %04d", g.between(40, 400)), "after the schema change"},
		{"after the node pool was resized to " + fmt.Sprint(g.between(3, 12)) + " nodes", "after the cluster was scaled down"},
	}
}

// story is one failure and everything recorded about it.
type story struct {
	Svc      service
	Sym      symptom
	Trig     trigger
	Error    string // the exact error text
	Cause    string
	Fix      string // the fix, in the PR's words
	Jira     string
	Sentry   string
	PR       int
	Repo     string
	Incident string
	Release  string
	Trace    string
	Assignee string
	Author   string
	Reviewer string
	Merger   string
	Lead     string
	Branch   string
}

// world holds the identifiers handed out so far (unique, some
// deliberately alike) and the stories.
type world struct {
	used    map[string]bool
	stories []*story
	tickets []ticket // every Jira ticket made, for searches that list them
	noise   []noiseTicket
	options []option
}

type ticket struct{ Key, Summary, Status, Assignee string }

func newWorld(g *gen) *world { return &world{used: map[string]bool{}} }

// id returns a fresh identifier made by mk.
func (w *world) id(mk func() string) string {
	for {
		if s := mk(); !w.used[s] {
			w.used[s] = true
			return s
		}
	}
}

// lookalike returns an unused identifier that differs from id by a digit
// appended or removed (INV-903 and INV-9030), or "" when there is none.
func (w *world) lookalike(g *gen, prefix string, n int) string {
	for _, m := range []int{n*10 + g.intn(10), n / 10} {
		if s := fmt.Sprintf("%s%d", prefix, m); m > 9 && !w.used[s] {
			w.used[s] = true
			return s
		}
	}
	return ""
}

var fixes = []string{
	"release the connection on every return path", "use a stable idempotency key per order",
	"add the missing composite index", "stream rows instead of loading them", "guard against empty carts",
	"order row updates by primary key", "default the field for guest users", "cap the cache per tenant",
	"move the HTTP call out of the transaction", "publish invalidations after commit", "renew certs with the shared issuer",
	"skip and park poison messages", "batch vendor calls in groups of fifty", "raise the pool with the replica count",
	"align keepalive with the load balancer", "delay readiness until the cache is warm",
}

// newStory makes story i's identities.
func (g *gen) newStory(w *world, i int) *story {
	s := &story{Svc: services[i%len(services)], Sym: symptoms[(i/len(services)+i)%len(symptoms)]}
	s.Trig = pick(g, triggers(g, s.Svc))
	s.Error = s.Sym.Error(g, s.Svc)
	s.Cause = pick(g, s.Sym.Cause)
	s.Fix = pick(g, fixes)
	n := g.between(100, 9999)
	s.Jira = w.id(func() string { n = g.between(100, 9999); return fmt.Sprintf("%s-%d", s.Svc.Project, n) })
	s.Sentry = w.id(func() string { return s.Svc.Sentry + "-" + strings.ToUpper(g.hex(g.between(2, 3))) })
	s.Repo = "shopco/" + s.Svc.Name
	pr := w.id(func() string { return fmt.Sprintf("%s#%d", s.Repo, g.between(120, 9999)) })
	fmt.Sscanf(pr[strings.IndexByte(pr, '#')+1:], "%d", &s.PR)
	s.Incident = w.id(func() string { return fmt.Sprintf("INC-%d", g.between(100, 2999)) })
	s.Release = fmt.Sprintf("%s v2.%d.%d", s.Svc.Name, g.between(3, 19), g.between(1, 9))
	s.Trace = g.hex(32)
	s.Assignee, s.Author, s.Reviewer, s.Merger, s.Lead = pick(g, people), pick(g, people), pick(g, people), pick(g, people), pick(g, people)
	for s.Reviewer == s.Author {
		s.Reviewer = pick(g, people)
	}
	s.Branch = fmt.Sprintf("fix/%s-%s", strings.ToLower(s.Jira), s.Sym.Name)
	return s
}
