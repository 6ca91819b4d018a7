package pgstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// searchPath is the search_path of every connection: the system catalog
// first, then the schema the tables live in, and nothing else ("$user"
// or a path the role or database sets could put a schema another role
// writes ahead of ours). Every bind parameter a statement passes to a
// function or operator is cast to its exact type as well, so a function
// planted in public with a looser signature (public.left(text, text))
// never wins overload resolution over pg_catalog's.
const searchPath = "pg_catalog, public"

// connect opens one connection to url with searchPath set at startup.
func connect(ctx context.Context, url string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("pgstore: connect: %w", scrub(err))
	}
	cfg.RuntimeParams["search_path"] = searchPath
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: connect: %w", scrub(err))
	}
	return conn, nil
}

// unsafeSchemasSQL lists the roles, other than superusers and the roles
// the current one acts as, that may CREATE in a schema on the search
// path: any of them could plant a function or operator there that runs
// as whoever calls it.
const unsafeSchemasSQL = `SELECT DISTINCT r.rolname::text FROM pg_roles r, unnest(current_schemas(false)) AS s(name)
	WHERE NOT r.rolsuper AND NOT pg_has_role(current_user, r.oid, 'MEMBER'::text)
	AND has_schema_privilege(r.oid, s.name, 'CREATE'::text) ORDER BY 1 LIMIT 10`

// checkSchemas refuses a database where another role may create objects
// on the search path (the default of PostgreSQL 14 and older, kept by
// databases upgraded from them), naming the fix.
func checkSchemas(ctx context.Context, conn *pgx.Conn) error {
	rows, err := conn.Query(ctx, unsafeSchemasSQL)
	if err != nil {
		return fmt.Errorf("pgstore: %w", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("pgstore: %w", err)
	}
	if len(names) > 0 {
		return fmt.Errorf("pgstore: roles %s may CREATE in schema public, where ctxhook's tables live; "+
			"as the schema's owner or a superuser run: REVOKE CREATE ON SCHEMA public FROM PUBLIC "+
			"(and from each role named), then run ctxhook store init again", strings.Join(names, ", "))
	}
	return nil
}
