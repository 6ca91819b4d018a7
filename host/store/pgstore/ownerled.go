package pgstore

// ownerLedReads (schema 6) makes the API functions' own work depend on
// nothing the caller cannot read (RATIONALE.md, "Why does every read
// start from the caller's own rows or the team's?"). Under schema 5 a
// function found a row through an index shared by every member (the
// primary key, (id, owner, visibility), (session, id)) and only then
// filtered on owner and visibility: neighbours of an event of one's own,
// put in a session one guesses, fetched every row another member had in
// that session, and events, pieces and read_body of another member's
// private id fetched his row (and his pieces), all counted in the
// caller's own pg_stat_get_xact_* and in the call's time.
//
// Now every index of the events is led by (owner, visibility) or holds
// team rows only, so no index range a function reads can hold another
// member's private row: the indexes led by id, session, server, time or
// key are dropped, and (owner, visibility, id) replaces the primary key
// as the pieces' foreign key target. Every query names either owner =
// session_user and visibility = 'private', or visibility = 'team', as
// conditions of the index it reads (the session indexes hold only rows
// with a session, a condition only a query that names the session
// states, so a lookup by id reads (owner, visibility, id) whatever the
// caller holds); a condition on another member's
// name is written so that no index can serve it (ownerOf). The pieces
// are read by their primary key only for ids already found readable
// that way. Sequential and bitmap scans are off inside the functions:
// a bitmap over many pages turns lossy and rechecks every row of a page.
//
// The event type gains owner, the login role that wrote the row: a
// member can claim any machine and session on a row of its own, and the
// owner is what tells such a row from one the named member wrote.
var ownerLedReads = `ALTER TABLE public.ctxhook_docs DROP CONSTRAINT ctxhook_docs_event_id_owner_visibility_fkey;
	ALTER TABLE public.ctxhook_events DROP CONSTRAINT ctxhook_events_id_owner_visibility_key;
	ALTER TABLE public.ctxhook_events DROP CONSTRAINT ctxhook_events_pkey;
	ALTER TABLE public.ctxhook_events ALTER COLUMN id SET NOT NULL;
	DROP INDEX public.ctxhook_events_session, public.ctxhook_events_server, public.ctxhook_events_time, public.ctxhook_events_key;
	ALTER TABLE public.ctxhook_events ADD CONSTRAINT ctxhook_events_owner_id UNIQUE (owner, visibility, id);
	ALTER TABLE public.ctxhook_docs ADD CONSTRAINT ctxhook_docs_event FOREIGN KEY (event_id, owner, visibility)
		REFERENCES public.ctxhook_events(id, owner, visibility) ON DELETE CASCADE;
	CREATE INDEX ctxhook_events_owner_session ON public.ctxhook_events(owner, visibility, session, machine, id)
		WHERE session IS NOT NULL;
	CREATE INDEX ctxhook_events_owner_key ON public.ctxhook_events(owner, visibility, event_key, id) WHERE event_key <> '';
	CREATE INDEX ctxhook_events_team_id ON public.ctxhook_events(id) WHERE visibility = 'team';
	CREATE INDEX ctxhook_events_team_session ON public.ctxhook_events(session, machine, id)
		WHERE visibility = 'team' AND session IS NOT NULL;
	CREATE INDEX ctxhook_events_team_key ON public.ctxhook_events(event_key, id) WHERE visibility = 'team' AND event_key <> '';
	ALTER TYPE ctxhook_search.event ADD ATTRIBUTE owner name;
	` + ownerLedFunctions + `
	` + putFunction + `
	REVOKE ALL ON ALL FUNCTIONS IN SCHEMA ctxhook_search FROM PUBLIC;
	GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ctxhook_search TO ctxhook_users;`

// apiReader is how every function of schema 6 is declared: as
// apiDefiner, and with no plan but index scans.
const apiReader = apiDefiner + ` SET enable_seqscan = off SET enable_bitmapscan = off`

// readable is a query of cols of the events the caller may read among
// ids (an SQL array): its own private ones, through (owner, visibility,
// id), and the team's, through the team's index on id. Neither range
// holds another member's private row. The caller's are joined id by id:
// PostgreSQL 15 applies = ANY on a later column of an index as a filter
// (outside a bitmap scan), and a join may hash all of the caller's rows;
// a lateral subquery kept whole (OFFSET 0) is probed once per id.
func readable(cols, ids string) string {
	return `SELECT ` + cols + ` FROM (SELECT DISTINCT u.i FROM pg_catalog.unnest(` + ids + `) AS u(i)) u,
		LATERAL (SELECT * FROM public.ctxhook_events e WHERE e.owner OPERATOR(pg_catalog.=) session_user
			AND e.visibility OPERATOR(pg_catalog.=) 'private' AND e.id OPERATOR(pg_catalog.=) u.i OFFSET 0) e
		UNION ALL
		SELECT ` + cols + ` FROM public.ctxhook_events e
		WHERE e.visibility OPERATOR(pg_catalog.=) 'team' AND e.id OPERATOR(pg_catalog.=) ANY(` + ids + `)`
}

// readableWhere is a query of cols of every event the caller may read
// that satisfies cond (on e).
func readableWhere(cols, cond string) string {
	return `SELECT ` + cols + ` FROM public.ctxhook_events e
		WHERE e.owner OPERATOR(pg_catalog.=) session_user AND e.visibility OPERATOR(pg_catalog.=) 'private' AND ` + cond + `
		UNION ALL
		SELECT ` + cols + ` FROM public.ctxhook_events e
		WHERE e.visibility OPERATOR(pg_catalog.=) 'team' AND ` + cond
}

// ownerOf is the condition that a team row e was written by owner: a
// CASE, which no index can serve, so that no plan reads an index range
// of that owner (the (owner, machine, local_id) key holds his private
// rows too); the team's own index is read instead.
func ownerOf(owner string) string {
	return `CASE WHEN e.visibility OPERATOR(pg_catalog.=) 'team' THEN e.owner OPERATOR(pg_catalog.=) ` + owner + ` END`
}

// neighbourIDs is the query of the ids next to an anchor, in direction
// op (">" later, "<" earlier), for neighbours' EXECUTE: $1 the anchor's
// id, $2 how many, $3 its session, $4 its machine, $5 its owner. The
// caller's own private rows in the session (when the anchor is its own)
// come from (owner, visibility, session, machine, id), the team's from
// the team's (session, machine, id).
func neighbourIDs(op string) string {
	dir := ""
	if op == "<" {
		dir = " DESC"
	}
	cmp := `e.session OPERATOR(pg_catalog.=) $3::text AND e.machine OPERATOR(pg_catalog.=) $4::text
			AND e.id OPERATOR(pg_catalog.` + op + `) $1::bigint`
	return `SELECT ARRAY(SELECT m.id FROM (
		(SELECT e.id FROM public.ctxhook_events e
			WHERE e.owner OPERATOR(pg_catalog.=) session_user AND e.visibility OPERATOR(pg_catalog.=) 'private'
			AND $5::name OPERATOR(pg_catalog.=) session_user AND ` + cmp + `
			ORDER BY e.id` + dir + ` LIMIT $2::int)
		UNION ALL
		(SELECT e.id FROM public.ctxhook_events e
			WHERE e.visibility OPERATOR(pg_catalog.=) 'team' AND ` + cmp + ` AND ` + ownerOf(`$5::name`) + `
			ORDER BY e.id` + dir + ` LIMIT $2::int)) m
		ORDER BY m.id` + dir + ` LIMIT $2::int)`
}

// ownEventIDs is the query of the ids of the caller's own events after
// $1, at most $2, in order (own_events).
const ownEventIDs = `SELECT m.id FROM (
		(SELECT e.id FROM public.ctxhook_events e WHERE e.owner OPERATOR(pg_catalog.=) session_user
			AND e.visibility OPERATOR(pg_catalog.=) 'private' AND e.id OPERATOR(pg_catalog.>) $1
			ORDER BY e.id LIMIT $2)
		UNION ALL
		(SELECT e.id FROM public.ctxhook_events e WHERE e.owner OPERATOR(pg_catalog.=) session_user
			AND e.visibility OPERATOR(pg_catalog.=) 'team' AND e.id OPERATOR(pg_catalog.>) $1
			ORDER BY e.id LIMIT $2)) m
	ORDER BY m.id LIMIT $2`

// keyIDs is the query of the first id of the events keyed $1 the caller
// may read (event_by_key).
const keyIDs = `SELECT k.id FROM (
		(SELECT e.id FROM public.ctxhook_events e WHERE e.owner OPERATOR(pg_catalog.=) session_user
			AND e.visibility OPERATOR(pg_catalog.=) 'private' AND e.event_key OPERATOR(pg_catalog.=) $1
			AND e.event_key OPERATOR(pg_catalog.<>) '' ORDER BY e.id LIMIT 1)
		UNION ALL
		(SELECT e.id FROM public.ctxhook_events e WHERE e.visibility OPERATOR(pg_catalog.=) 'team'
			AND e.event_key OPERATOR(pg_catalog.=) $1 AND e.event_key OPERATOR(pg_catalog.<>) ''
			ORDER BY e.id LIMIT 1)) k
	ORDER BY k.id LIMIT 1`

// sessionCond is, for stats, the condition that e is in session $1 (or
// any, for the empty string).
const sessionCond = `($1 OPERATOR(pg_catalog.=) '' OR e.session OPERATOR(pg_catalog.=) $1)`

// eventRow is the columns of a ctxhook_search.event of the row e, its
// bodies cut to $2 characters.
const eventRow = `e.id, e.ts_ms, e.session, e.harness, e.hook_event, e.category, e.tool, e.server, e.tool_use_id,
	e.cwd, e.args, left(e.response, $2), left(e.body_text, $2), e.response_bytes, e.truncated,
	e.redactions, e.event_key, e.context_bytes, octet_length(e.response)::bigint,
	octet_length(e.body_text)::bigint, e.owner OPERATOR(pg_catalog.=) session_user, e.machine, e.owner`

// ownerLedFunctions replace every function of schema 5 but
// schema_version and cursor (which read the schema table, and the
// caller's own (owner, machine, local_id) range).
var ownerLedFunctions = `CREATE OR REPLACE FUNCTION ctxhook_search.events(p_ids bigint[], p_head int) RETURNS SETOF ctxhook_search.event
		LANGUAGE sql STABLE STRICT ` + apiReader + ` AS $f$
		SELECT ` + eventRow + ` FROM (` + readable(`e.*`, `$1`) + `) e $f$;
	CREATE OR REPLACE FUNCTION ctxhook_search.event_by_key(p_key text, p_head int) RETURNS SETOF ctxhook_search.event
		LANGUAGE sql STABLE STRICT ` + apiReader + ` AS $f$
		SELECT * FROM ctxhook_search.events(ARRAY(` + keyIDs + `), $2) $f$;
	CREATE OR REPLACE FUNCTION ctxhook_search.own_events(p_after bigint, p_limit int) RETURNS SETOF ctxhook_search.event
		LANGUAGE sql STABLE STRICT ` + apiReader + ` AS $f$
		SELECT * FROM ctxhook_search.events(ARRAY(` + ownEventIDs + `), 1073741824) ORDER BY 1 $f$;
	CREATE OR REPLACE FUNCTION ctxhook_search.neighbours(p_id bigint, p_n int, p_later boolean, p_head int)
		RETURNS SETOF ctxhook_search.event
		LANGUAGE plpgsql STABLE STRICT ` + apiReader + ` AS $f$
	DECLARE
		a record;
		ids bigint[];
	BEGIN
		SELECT e.owner, e.session, e.machine INTO a FROM (` + readable(`e.owner, e.session, e.machine`, `ARRAY[p_id]`) + `) e;
		IF NOT FOUND THEN
			RETURN;
		END IF;
		IF p_later THEN
			EXECUTE $q$` + neighbourIDs(">") + `$q$ INTO ids USING p_id, p_n, a.session, a.machine, a.owner;
		ELSE
			EXECUTE $q$` + neighbourIDs("<") + `$q$ INTO ids USING p_id, p_n, a.session, a.machine, a.owner;
		END IF;
		RETURN QUERY SELECT * FROM ctxhook_search.events(ids, p_head) ORDER BY 1;
	END $f$;
	CREATE OR REPLACE FUNCTION ctxhook_search.pieces(p_ids bigint[], p_seqs int[])
		RETURNS TABLE(event_id bigint, seq int, doc text, body_off bigint, pre int)
		LANGUAGE plpgsql STABLE STRICT ` + apiReader + ` AS $f$
	DECLARE
		vis bigint[] := ARRAY(` + readable(`e.id`, `p_ids`) + `);
	BEGIN
		RETURN QUERY SELECT d.event_id, d.seq, d.doc, d.body_off, d.pre
			FROM ROWS FROM (pg_catalog.unnest(p_ids), pg_catalog.unnest(p_seqs)) AS u(i, s), public.ctxhook_docs d
			WHERE u.i OPERATOR(pg_catalog.=) ANY(vis) AND d.event_id OPERATOR(pg_catalog.=) u.i
			AND d.seq OPERATOR(pg_catalog.=) u.s;
	END $f$;
	CREATE OR REPLACE FUNCTION ctxhook_search.read_body(p_id bigint, p_field text, p_from int, p_len int) RETURNS SETOF bytea
		LANGUAGE sql STABLE STRICT ` + apiReader + ` AS $f$
		SELECT substring(convert_to(CASE WHEN p_field OPERATOR(pg_catalog.=) 'response' THEN e.response
				WHEN p_field OPERATOR(pg_catalog.=) 'body_text' THEN e.body_text ELSE '' END, 'UTF8'::name)
			FROM greatest(p_from, 1) FOR greatest(p_len, 0))
		FROM (` + readable(`e.response, e.body_text`, `ARRAY[$1]`) + `) e $f$;
	CREATE OR REPLACE FUNCTION ctxhook_search.stats(p_session text)
		RETURNS TABLE(sessions bigint, events bigint, bytes_captured bigint, bytes_stored bigint, redactions bigint,
			truncated bigint, first_ms bigint, last_ms bigint, mcp_calls bigint)
		LANGUAGE sql STABLE STRICT ` + apiReader + ` AS $f$
		SELECT count(DISTINCT e.session), count(*), coalesce(sum(e.response_bytes), 0)::bigint,
			coalesce(sum(octet_length(e.response) OPERATOR(pg_catalog.+) octet_length(e.body_text)), 0)::bigint,
			coalesce(sum(e.redactions), 0)::bigint, count(*) FILTER (WHERE e.truncated),
			coalesce(min(e.ts_ms), 0), coalesce(max(e.ts_ms), 0),
			count(*) FILTER (WHERE e.category OPERATOR(pg_catalog.=) 'mcp')
		FROM (` + readableWhere(`e.session, e.response_bytes, e.response, e.body_text, e.redactions, e.truncated, e.ts_ms, e.category`, sessionCond) + `) e $f$;
	CREATE OR REPLACE FUNCTION ctxhook_search.stats_groups(p_session text) RETURNS TABLE(kind text, k text, n bigint)
		LANGUAGE sql STABLE STRICT ` + apiReader + ` AS $f$
		SELECT g.kind, g.k, count(*) FROM (` + readableWhere(`e.category, e.server`, sessionCond) + `) e,
			LATERAL (VALUES ('category', e.category), ('server', e.server)) AS g(kind, k)
		WHERE g.k OPERATOR(pg_catalog.<>) ''
		GROUP BY g.kind, g.k $f$;
	CREATE OR REPLACE FUNCTION ctxhook_search.purge(p_session text, p_server text, p_before bigint, p_dry boolean)
		RETURNS TABLE(events bigint, bytes bigint)
		LANGUAGE sql VOLATILE STRICT ` + apiReader + ` AS $f$
		WITH sel AS (
			SELECT e.id, e.visibility, octet_length(e.response) OPERATOR(pg_catalog.+) octet_length(e.body_text) AS b
			FROM public.ctxhook_events e WHERE e.owner OPERATOR(pg_catalog.=) session_user
			AND (p_session OPERATOR(pg_catalog.=) '' OR e.session OPERATOR(pg_catalog.=) p_session)
			AND (p_server OPERATOR(pg_catalog.=) '' OR e.server OPERATOR(pg_catalog.=) p_server)
			AND (p_before OPERATOR(pg_catalog.=) 0 OR e.ts_ms OPERATOR(pg_catalog.<) p_before)
		), del AS (
			DELETE FROM public.ctxhook_events e USING sel
			WHERE NOT p_dry AND e.owner OPERATOR(pg_catalog.=) session_user
			AND e.visibility OPERATOR(pg_catalog.=) sel.visibility AND e.id OPERATOR(pg_catalog.=) sel.id
			RETURNING e.id
		)
		SELECT CASE WHEN p_dry THEN (SELECT count(*) FROM sel) ELSE (SELECT count(*) FROM del) END,
			(SELECT coalesce(sum(sel.b), 0)::bigint FROM sel) $f$;`
