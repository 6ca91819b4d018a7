package pgstore

import "github.com/ctxhook/ctxhook/plugin/abi"

// closedTables (schema 5) takes every privilege on ctxhook's tables away
// from the members (RATIONALE.md, "Why can a member not read the tables
// at all?"). Under schema 4 a member still held SELECT, INSERT and
// DELETE: row-level security hid the rows, but not what the planner and
// the executor say about them. A leakproof operator (texteq, starts_with)
// is estimated from pg_statistic, which ANALYZE draws from every row, so
// EXPLAIN's row estimates spelled out another member's private text; the
// same operators were index conditions on another member's own partial
// index, counted by EXPLAIN ANALYZE before the policy removed the rows;
// and DELETE let a member LOCK TABLE in any mode and stop everyone's
// shipping and searches. Now a member holds no privilege on any table or
// sequence (nor does ctxhook_users or PUBLIC): everything the client does
// is a SECURITY DEFINER function of ctxhook_search (apiFunctions) that
// decides the owner from session_user, the role that logged in, which no
// SET ROLE changes. The per-member indexes stay (a GIN index shared by
// all, even one on (owner, doc) through btree_gin, reads the entries of
// every member's trigrams: a lookup of a trigram only another member's
// private piece holds read one more index block and took measurably
// longer, RATIONALE.md). The pieces' text columns keep no statistics, so
// no plan inside a function turns on another member's words.
var closedTables = `ALTER ROLE ctxhook_users NOLOGIN;
	REVOKE ALL ON public.ctxhook_events, public.ctxhook_docs, public.ctxhook_schema FROM ctxhook_users, PUBLIC;
	REVOKE ALL ON SEQUENCE public.ctxhook_events_id_seq FROM ctxhook_users, PUBLIC;
	GRANT SELECT, INSERT, DELETE ON public.ctxhook_events TO ctxhook_search;
	GRANT INSERT, DELETE ON public.ctxhook_docs TO ctxhook_search;
	GRANT USAGE ON SEQUENCE public.ctxhook_events_id_seq TO ctxhook_search;
	GRANT SELECT ON public.ctxhook_schema TO ctxhook_search;
	CREATE POLICY api_read ON public.ctxhook_events FOR SELECT TO ctxhook_search USING (true);
	CREATE POLICY api_write ON public.ctxhook_events FOR INSERT TO ctxhook_search WITH CHECK (owner OPERATOR(pg_catalog.=) session_user);
	CREATE POLICY api_delete ON public.ctxhook_events FOR DELETE TO ctxhook_search USING (owner OPERATOR(pg_catalog.=) session_user);
	CREATE POLICY api_write ON public.ctxhook_docs FOR INSERT TO ctxhook_search WITH CHECK (owner OPERATOR(pg_catalog.=) session_user);
	CREATE POLICY api_delete ON public.ctxhook_docs FOR DELETE TO ctxhook_search USING (owner OPERATOR(pg_catalog.=) session_user);
	ALTER TABLE public.ctxhook_events ALTER COLUMN owner SET DEFAULT session_user;
	ALTER TABLE public.ctxhook_docs ALTER COLUMN owner SET DEFAULT session_user;
	ALTER TABLE public.ctxhook_events ADD CONSTRAINT ctxhook_events_member
		CHECK (owner NOT IN ('ctxhook_users', 'ctxhook_search')) NOT VALID;
	ALTER TABLE public.ctxhook_docs ADD CONSTRAINT ctxhook_docs_member
		CHECK (owner NOT IN ('ctxhook_users', 'ctxhook_search')) NOT VALID;
	ALTER TABLE public.ctxhook_docs ALTER COLUMN doc SET STATISTICS 0, ALTER COLUMN words SET STATISTICS 0;
	ALTER FUNCTION ctxhook_search.words(text) SET search_path = pg_catalog, ctxhook_search, pg_temp;
	ALTER FUNCTION ctxhook_search.substrings(text) SET search_path = pg_catalog, ctxhook_search, pg_temp;
	ALTER FUNCTION ctxhook_search.words(text) SET lock_timeout = '` + lockTimeout + `';
	ALTER FUNCTION ctxhook_search.substrings(text) SET lock_timeout = '` + lockTimeout + `';
	` + apiFunctions + `
	ALTER TYPE ctxhook_search.event OWNER TO ctxhook_search;
	DO $$ DECLARE r record; BEGIN
		FOR r IN SELECT p.oid::regprocedure AS f FROM pg_catalog.pg_proc p
			WHERE p.pronamespace = 'ctxhook_search'::regnamespace LOOP
			EXECUTE pg_catalog.format('ALTER FUNCTION %s OWNER TO ctxhook_search', r.f);
		END LOOP;
	END $$;
	REVOKE ALL ON ALL FUNCTIONS IN SCHEMA ctxhook_search FROM PUBLIC;
	GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ctxhook_search TO ctxhook_users;`

// lockTimeout bounds how long a function waits for a lock (the
// administrator's DDL, a migration): a function's SET lock_timeout is
// read when the wait starts, so it holds, unlike statement_timeout
// (docs/threats.md).
const lockTimeout = "5s"

// apiDefiner is how every function of the API is declared: it runs as
// ctxhook_search with the catalog first and pg_temp last on its path.
const apiDefiner = `SECURITY DEFINER SET search_path = pg_catalog, ctxhook_search, pg_temp SET lock_timeout = '` + lockTimeout + `'`

// visible is the condition, on an event or piece e, that the caller may
// read it: its own, or the team's.
const visible = `(e.owner OPERATOR(pg_catalog.=) session_user OR e.visibility OPERATOR(pg_catalog.=) 'team')`

// apiFunctions are all a member can do with the shared store, each
// deciding the owner from session_user and returning only rows the
// caller may read: the schema's version, ship (put, cursor), read
// (events, event_by_key, neighbours, pieces, read_body), stats and
// purge of its own rows. events is what every read returns; head cuts
// the bodies to that many characters.
const apiFunctions = `CREATE FUNCTION ctxhook_search.schema_version() RETURNS int
		LANGUAGE sql STABLE ` + apiDefiner + ` AS $f$
		SELECT coalesce(max(s.version), 0) FROM public.ctxhook_schema s $f$;
	CREATE FUNCTION ctxhook_search.cursor(p_machine text) RETURNS bigint
		LANGUAGE sql STABLE STRICT ` + apiDefiner + ` AS $f$
		SELECT coalesce(max(e.local_id), 0) FROM public.ctxhook_events e
		WHERE e.owner OPERATOR(pg_catalog.=) session_user AND e.machine OPERATOR(pg_catalog.=) p_machine $f$;
	CREATE FUNCTION ctxhook_search.put(p_machine text, p_local_id bigint, p_visibility text, p_ts_ms bigint,
		p_session text, p_harness text, p_hook_event text, p_category text, p_tool text, p_server text,
		p_tool_use_id text, p_cwd text, p_args text, p_response text, p_body_text text, p_response_bytes bigint,
		p_truncated boolean, p_redactions bigint, p_event_key text, p_context_bytes bigint, p_pre int,
		p_offs bigint[], p_docs text[]) RETURNS SETOF bigint
		LANGUAGE sql VOLATILE ` + apiDefiner + ` AS $f$
		WITH e AS (
			INSERT INTO public.ctxhook_events(owner, machine, local_id, visibility, ts_ms, session, harness,
				hook_event, category, tool, server, tool_use_id, cwd, args, response, body_text, response_bytes,
				truncated, redactions, event_key, context_bytes)
			VALUES(session_user, p_machine, p_local_id, p_visibility, p_ts_ms, p_session, p_harness, p_hook_event,
				p_category, p_tool, p_server, p_tool_use_id, p_cwd, p_args, p_response, p_body_text, p_response_bytes,
				p_truncated, p_redactions, p_event_key, p_context_bytes)
			ON CONFLICT (owner, machine, local_id) DO NOTHING RETURNING id
		), d AS (
			INSERT INTO public.ctxhook_docs(event_id, seq, owner, visibility, body_off, pre, doc)
			SELECT e.id, p.seq OPERATOR(pg_catalog.-) 1, session_user, p_visibility, p.off,
				CASE WHEN p.seq OPERATOR(pg_catalog.=) 1 THEN p_pre ELSE 0 END, p.doc
			FROM e CROSS JOIN ROWS FROM (pg_catalog.unnest(p_offs), pg_catalog.unnest(p_docs)) WITH ORDINALITY AS p(off, doc, seq)
		)
		SELECT e.id FROM e $f$;
	CREATE TYPE ctxhook_search.event AS (id bigint, ts_ms bigint, session text, harness text, hook_event text,
		category text, tool text, server text, tool_use_id text, cwd text, args text, response text, body_text text,
		response_bytes bigint, truncated boolean, redactions bigint, event_key text, context_bytes bigint,
		response_size bigint, text_size bigint, mine boolean, machine text);
	CREATE FUNCTION ctxhook_search.events(p_ids bigint[], p_head int) RETURNS SETOF ctxhook_search.event
		LANGUAGE sql STABLE STRICT ` + apiDefiner + ` AS $f$
		SELECT e.id, e.ts_ms, e.session, e.harness, e.hook_event, e.category, e.tool, e.server, e.tool_use_id,
			e.cwd, e.args, left(e.response, p_head), left(e.body_text, p_head), e.response_bytes, e.truncated,
			e.redactions, e.event_key, e.context_bytes, octet_length(e.response)::bigint,
			octet_length(e.body_text)::bigint, e.owner OPERATOR(pg_catalog.=) session_user, e.machine
		FROM public.ctxhook_events e WHERE e.id OPERATOR(pg_catalog.=) ANY(p_ids) AND ` + visible + ` $f$;
	CREATE FUNCTION ctxhook_search.event_by_key(p_key text, p_head int) RETURNS SETOF ctxhook_search.event
		LANGUAGE sql STABLE STRICT ` + apiDefiner + ` AS $f$
		SELECT * FROM ctxhook_search.events(ARRAY(SELECT e.id FROM public.ctxhook_events e
			WHERE e.event_key OPERATOR(pg_catalog.=) p_key AND p_key OPERATOR(pg_catalog.<>) '' AND ` + visible + `
			ORDER BY e.id LIMIT 1), p_head) $f$;
	CREATE FUNCTION ctxhook_search.neighbours(p_id bigint, p_n int, p_later boolean, p_head int)
		RETURNS SETOF ctxhook_search.event
		LANGUAGE sql STABLE STRICT ` + apiDefiner + ` AS $f$
		SELECT * FROM ctxhook_search.events(ARRAY(SELECT e.id FROM public.ctxhook_events a, public.ctxhook_events e
			WHERE a.id OPERATOR(pg_catalog.=) p_id
			AND (a.owner OPERATOR(pg_catalog.=) session_user OR a.visibility OPERATOR(pg_catalog.=) 'team')
			AND e.session OPERATOR(pg_catalog.=) a.session AND e.owner OPERATOR(pg_catalog.=) a.owner
			AND e.machine OPERATOR(pg_catalog.=) a.machine AND ` + visible + `
			AND CASE WHEN p_later THEN e.id OPERATOR(pg_catalog.>) p_id ELSE e.id OPERATOR(pg_catalog.<) p_id END
			ORDER BY CASE WHEN p_later THEN e.id ELSE OPERATOR(pg_catalog.-) e.id END LIMIT p_n), p_head)
		ORDER BY 1 $f$;
	CREATE FUNCTION ctxhook_search.pieces(p_ids bigint[], p_seqs int[])
		RETURNS TABLE(event_id bigint, seq int, doc text, body_off bigint, pre int)
		LANGUAGE sql STABLE STRICT ` + apiDefiner + ` AS $f$
		SELECT e.event_id, e.seq, e.doc, e.body_off, e.pre
		FROM ROWS FROM (pg_catalog.unnest(p_ids), pg_catalog.unnest(p_seqs)) AS u(i, s), public.ctxhook_docs e
		WHERE e.event_id OPERATOR(pg_catalog.=) u.i AND e.seq OPERATOR(pg_catalog.=) u.s AND ` + visible + ` $f$;
	CREATE FUNCTION ctxhook_search.read_body(p_id bigint, p_field text, p_from int, p_len int) RETURNS SETOF bytea
		LANGUAGE sql STABLE STRICT ` + apiDefiner + ` AS $f$
		SELECT substring(convert_to(CASE WHEN p_field OPERATOR(pg_catalog.=) 'response' THEN e.response
				WHEN p_field OPERATOR(pg_catalog.=) 'body_text' THEN e.body_text ELSE '' END, 'UTF8'::name)
			FROM greatest(p_from, 1) FOR greatest(p_len, 0))
		FROM public.ctxhook_events e WHERE e.id OPERATOR(pg_catalog.=) p_id AND ` + visible + ` $f$;
	CREATE FUNCTION ctxhook_search.stats(p_session text)
		RETURNS TABLE(sessions bigint, events bigint, bytes_captured bigint, bytes_stored bigint, redactions bigint,
			truncated bigint, first_ms bigint, last_ms bigint, mcp_calls bigint)
		LANGUAGE sql STABLE STRICT ` + apiDefiner + ` AS $f$
		SELECT count(DISTINCT e.session), count(*), coalesce(sum(e.response_bytes), 0)::bigint,
			coalesce(sum(octet_length(e.response) OPERATOR(pg_catalog.+) octet_length(e.body_text)), 0)::bigint,
			coalesce(sum(e.redactions), 0)::bigint, count(*) FILTER (WHERE e.truncated),
			coalesce(min(e.ts_ms), 0), coalesce(max(e.ts_ms), 0),
			count(*) FILTER (WHERE e.category OPERATOR(pg_catalog.=) '` + abi.CategoryMCP + `')
		FROM public.ctxhook_events e
		WHERE ` + visible + ` AND (p_session OPERATOR(pg_catalog.=) '' OR e.session OPERATOR(pg_catalog.=) p_session) $f$;
	CREATE FUNCTION ctxhook_search.stats_groups(p_session text) RETURNS TABLE(kind text, k text, n bigint)
		LANGUAGE sql STABLE STRICT ` + apiDefiner + ` AS $f$
		SELECT g.kind, g.k, count(*) FROM public.ctxhook_events e,
			LATERAL (VALUES ('category', e.category), ('server', e.server)) AS g(kind, k)
		WHERE ` + visible + ` AND (p_session OPERATOR(pg_catalog.=) '' OR e.session OPERATOR(pg_catalog.=) p_session)
			AND g.k OPERATOR(pg_catalog.<>) ''
		GROUP BY g.kind, g.k $f$;
	CREATE FUNCTION ctxhook_search.purge(p_session text, p_server text, p_before bigint, p_dry boolean)
		RETURNS TABLE(events bigint, bytes bigint)
		LANGUAGE sql VOLATILE STRICT ` + apiDefiner + ` AS $f$
		WITH sel AS (
			SELECT e.id, octet_length(e.response) OPERATOR(pg_catalog.+) octet_length(e.body_text) AS b
			FROM public.ctxhook_events e WHERE e.owner OPERATOR(pg_catalog.=) session_user
			AND (p_session OPERATOR(pg_catalog.=) '' OR e.session OPERATOR(pg_catalog.=) p_session)
			AND (p_server OPERATOR(pg_catalog.=) '' OR e.server OPERATOR(pg_catalog.=) p_server)
			AND (p_before OPERATOR(pg_catalog.=) 0 OR e.ts_ms OPERATOR(pg_catalog.<) p_before)
		), del AS (
			DELETE FROM public.ctxhook_events e USING sel
			WHERE NOT p_dry AND e.id OPERATOR(pg_catalog.=) sel.id AND e.owner OPERATOR(pg_catalog.=) session_user
			RETURNING e.id
		)
		SELECT CASE WHEN p_dry THEN (SELECT count(*) FROM sel) ELSE (SELECT count(*) FROM del) END,
			(SELECT coalesce(sum(sel.b), 0)::bigint FROM sel) $f$;
	CREATE FUNCTION ctxhook_search.own_events(p_after bigint, p_limit int) RETURNS SETOF ctxhook_search.event
		LANGUAGE sql STABLE STRICT ` + apiDefiner + ` AS $f$
		SELECT * FROM ctxhook_search.events(ARRAY(SELECT e.id FROM public.ctxhook_events e
			WHERE e.owner OPERATOR(pg_catalog.=) session_user AND e.id OPERATOR(pg_catalog.>) p_after
			ORDER BY e.id LIMIT p_limit), 1073741824)
		ORDER BY 1 $f$;`
