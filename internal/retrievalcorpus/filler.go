package retrievalcorpus

import (
	"fmt"
	"strings"
)

// Filler text: what surrounds the facts in real responses (comments,
// log noise, docs prose), varied enough that words are not all rare.
var (
	chatter = []string{
		"Deployed to staging, looks fine so far.", "Can we get a repro with the seed data?",
		"I checked the dashboards and nothing stands out before 14:00.", "Moving this to the next sprint.",
		"This is blocked on the platform team's review.", "Added a test that covers the happy path.",
		"We saw the same thing last quarter, see the postmortem.", "Bumping priority, support is getting tickets.",
		"Pairing on this tomorrow morning.", "The alert fired twice overnight but auto-resolved.",
		"QA signed off on the staging build.", "Customer impact looks limited to the EU region.",
		"Rolled the canary back to be safe.", "Need product to confirm the expected behaviour.",
		"Logs attached, trimmed to the relevant window.", "Not reproducible locally with the default config.",
		"The metrics look normal after the restart.", "Linking the design doc for context.",
		"Closing as duplicate if nobody objects.", "Waiting for the vendor's support engineer.",
	}
	verbs   = []string{"refactor", "document", "instrument", "migrate", "deprecate", "add", "remove", "cache", "validate", "paginate", "rename", "split"}
	objects = []string{"the retry helper", "webhook handlers", "the admin export", "currency rounding", "address validation",
		"the nightly reconciliation", "coupon stacking", "gift card balances", "the tax calculation", "order history pagination",
		"the CSV importer", "SKU normalisation", "the health endpoint", "rate card caching", "partner API keys rotation",
		"the outbox relay", "session cookie flags", "refund emails", "warehouse webhooks", "the search synonyms file"}
	tests = []string{"TestRefundPartial", "TestCartMerge", "TestLedgerMigration", "TestQuoteCache", "TestTokenRefresh",
		"TestInvoiceTotals", "TestOutboxReplay", "TestStockReservation", "TestScoreThresholds", "TestSearchReindex",
		"TestWebhookRetry", "TestCurrencyRounding", "TestSessionExpiry", "TestCouponLimits", "TestAddressParse"}
	libs = []string{"pgx", "go-redis", "grpc-go", "kafka-go", "zap", "chi", "sqlc", "stripe-go", "otel", "testify", "viper", "cobra"}
)

// sentence is one line of engineering chatter.
func (g *gen) sentence() string {
	switch g.intn(4) {
	case 0:
		return fmt.Sprintf("We should %s %s before the freeze.", pick(g, verbs), pick(g, objects))
	case 1:
		return fmt.Sprintf("%s is also touched by %s.", strings.ToUpper(pick(g, objects)[:1])+pick(g, objects)[1:], pick(g, tests))
	default:
		return pick(g, chatter)
	}
}

// paragraph is n sentences.
func (g *gen) paragraph(n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = g.sentence()
	}
	return strings.Join(s, " ")
}

// stamp is a time in the corpus's two weeks, as Jira writes it.
func (g *gen) stamp() string {
	return fmt.Sprintf("2026-11-%02dT%02d:%02d:%02d.000+0000", g.between(8, 21), g.between(0, 23), g.between(0, 59), g.between(0, 59))
}

// logLine is a line of routine log output of a service.
func (g *gen) logLine(svc string) string {
	switch g.intn(6) {
	case 0:
		return fmt.Sprintf(`level=info msg="request served" svc=%s route=/api/v1/%s status=200 dur_ms=%d trace_id=%s`, svc, pick(g, []string{"orders", "carts", "quotes", "users", "items", "refunds"}), g.between(2, 300), g.hex(32))
	case 1:
		return fmt.Sprintf(`level=debug msg="cache hit" svc=%s key=%s:%s age_s=%d`, svc, pick(g, []string{"sku", "user", "cart", "rate"}), g.hex(8), g.between(1, 600))
	case 2:
		return fmt.Sprintf(`level=info msg="job finished" svc=%s job=%s rows=%d dur_ms=%d`, svc, pick(g, []string{"reindex", "reconcile", "expire-carts", "sync-stock", "send-digest"}), g.between(0, 90000), g.between(10, 90000))
	case 3:
		return fmt.Sprintf(`level=warn msg="slow query" svc=%s table=%s dur_ms=%d rows=%d`, svc, pick(g, []string{"orders", "users", "charges", "stock_levels", "invoices"}), g.between(500, 5000), g.between(1, 100000))
	case 4:
		return fmt.Sprintf(`level=info msg="http client" svc=%s upstream=%s status=%d attempt=%d`, svc, pick(g, []string{"payments-svc:8080", "inventory-sync:9090", "fraud-scorer:7001", "shipping-quotes:8443"}), pick(g, []int{200, 200, 200, 201, 204, 404, 409}), g.between(1, 3))
	default:
		return fmt.Sprintf(`level=info msg="heartbeat" svc=%s goroutines=%d heap_mb=%d`, svc, g.between(40, 900), g.between(30, 800))
	}
}
