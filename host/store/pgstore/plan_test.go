package pgstore

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestReadsStartFromOwnRows: every query by which a function of schema 6
// finds events is planned, as the functions' owner with their settings,
// over a table where another member holds 20,000 private events in 500
// sessions (after ANALYZE), both with the values and as a generic plan
// (what a function reuses): each reads ctxhook_events only through an
// index led by owner = session_user and visibility, or through one of
// the team's partial indexes, so no plan can read another member's
// private row before its filter.
func TestReadsStartFromOwnRows(t *testing.T) {
	needPG(t)
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	tx, err := admin.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	for _, sql := range []string{
		`INSERT INTO ctxhook_events(owner, machine, local_id, visibility, ts_ms, session, harness, hook_event, category, event_key)
			SELECT 'planbob', 'boblaptop', g, CASE WHEN g % 4 = 0 THEN 'team' ELSE 'private' END, g, 's' || (g % 500),
				'h', 'e', 'mcp', 'k' || g FROM generate_series(1, 20000) g`,
		`INSERT INTO ctxhook_events(owner, machine, local_id, visibility, ts_ms, session, harness, hook_event, category)
			SELECT current_user, 'm', g, 'private', g, 's1', 'h', 'e', 'mcp' FROM generate_series(1, 3) g`,
		`ANALYZE ctxhook_events`,
		`SET LOCAL ROLE ctxhook_search`, `SET LOCAL enable_seqscan = off`, `SET LOCAL enable_bitmapscan = off`,
	} {
		if _, err := tx.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	for _, c := range []struct {
		name, types, sql, args string
	}{
		{"readable ids", "bigint[]", readable(`e.*`, `$1`), "ARRAY[5, 6, 7]::bigint[]"},
		{"readable id", "bigint", readable(`e.owner`, `ARRAY[$1]`), "5"},
		{"neighbours later", "bigint, int, text, text, name", neighbourIDs(">"), "5, 5, 's5', 'boblaptop', 'planbob'"},
		{"neighbours earlier", "bigint, int, text, text, name", neighbourIDs("<"), "19000, 5, 's5', 'boblaptop', 'planbob'"},
		{"own neighbours", "bigint, int, text, text, name", neighbourIDs(">"), "1, 5, 's1', 'm', current_user"},
		{"own events", "bigint, int", ownEventIDs, "0, 100"},
		{"event by key", "text", keyIDs, "'k8'"},
		{"stats", "text", readableWhere(`e.session`, sessionCond), "'s5'"},
		{"stats of all", "text", readableWhere(`e.session`, sessionCond), "''"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
				if _, err := tx.Exec(ctx, `SET LOCAL plan_cache_mode = `+mode); err != nil {
					t.Fatal(err)
				}
				if _, err := tx.Exec(ctx, `PREPARE q(`+c.types+`) AS `+c.sql); err != nil {
					t.Fatal(err)
				}
				var plan []map[string]any
				err := tx.QueryRow(ctx, `EXPLAIN (FORMAT JSON) EXECUTE q(`+c.args+`)`).Scan(&plan)
				if _, err := tx.Exec(ctx, `DEALLOCATE q`); err != nil {
					t.Fatal(err)
				}
				if err != nil {
					t.Fatal(err)
				}
				for _, bad := range eventScans(plan[0]["Plan"].(map[string]any)) {
					t.Errorf("%s: %s", mode, bad)
				}
			}
		})
	}
}

// ownerLed are the indexes of the events led by owner, and teamOnly
// those that hold team rows only.
var (
	ownerLed = map[string]bool{"ctxhook_events_owner_id": true, "ctxhook_events_owner_session": true,
		"ctxhook_events_owner_key": true, "ctxhook_events_owner_machine_local_id_key": true}
	teamOnly = map[string]bool{"ctxhook_events_team_id": true, "ctxhook_events_team_session": true, "ctxhook_events_team_key": true}
)

// eventScans says which scans of ctxhook_events in plan could read
// another member's private rows: any but an index scan of a team index
// or of an owner-led one whose first condition is owner = session_user.
func eventScans(plan map[string]any) []string {
	var bad []string
	if plan["Relation Name"] == "ctxhook_events" {
		ix, _ := plan["Index Name"].(string)
		cond, _ := plan["Index Cond"].(string)
		switch {
		case teamOnly[ix]:
		case ownerLed[ix] && strings.HasPrefix(cond, "((owner = SESSION_USER)"):
		default:
			js, _ := json.Marshal(plan)
			bad = append(bad, string(js))
		}
	}
	kids, _ := plan["Plans"].([]any)
	for _, k := range kids {
		bad = append(bad, eventScans(k.(map[string]any))...)
	}
	return bad
}
