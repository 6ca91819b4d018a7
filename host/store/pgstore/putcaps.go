package pgstore

import "strconv"

// The caps put holds a client to: ctxhook cuts every body at
// maxBodyBytes (abi.DefaultMaxEventBytes, as much as a hook reads) and
// every other text at maxFieldBytes before it sends them (capText), and
// cuts the searchable body into pieces of DocSize bytes reaching
// docOverlap bytes into the next, each end moved up to 3 bytes to a
// character's start; the first piece also holds the tool, server and
// arguments (pre).
const (
	maxBodyBytes  = 128 << 20
	maxFieldBytes = 64 << 10
	maxPieceBytes = DocSize + docOverlap + 6
)

// putFunction (schema 6) holds put to what ctxhook's client sends: it
// checks its arguments alone, before anything is read or written, and
// refuses an event without a local id, which would escape the (owner,
// machine, local_id) key that makes shipping exactly-once. Under schema
// 5 a member's raw put of one 39 MB piece took the server 1 min 40 s of
// indexing, in the team's indexes every member's search reads.
var putFunction = `CREATE OR REPLACE FUNCTION ctxhook_search.put(p_machine text, p_local_id bigint, p_visibility text, p_ts_ms bigint,
		p_session text, p_harness text, p_hook_event text, p_category text, p_tool text, p_server text,
		p_tool_use_id text, p_cwd text, p_args text, p_response text, p_body_text text, p_response_bytes bigint,
		p_truncated boolean, p_redactions bigint, p_event_key text, p_context_bytes bigint, p_pre int,
		p_offs bigint[], p_docs text[]) RETURNS SETOF bigint
		LANGUAGE plpgsql VOLATILE ` + apiReader + ` AS $f$
	DECLARE
		body bigint := octet_length(CASE WHEN p_body_text OPERATOR(pg_catalog.<>) '' THEN p_body_text ELSE p_response END);
	BEGIN
		IF p_local_id IS NULL THEN
			RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'ctxhook: put: an event needs its local id';
		END IF;
		IF greatest(octet_length(p_args), octet_length(p_response), octet_length(p_body_text)) > ` + strconv.Itoa(maxBodyBytes) + ` THEN
			RAISE EXCEPTION USING ERRCODE = '54000', MESSAGE = 'ctxhook: put: arguments, response and text are at most ` + strconv.Itoa(maxBodyBytes) + ` bytes each';
		END IF;
		IF greatest(octet_length(p_machine), octet_length(p_session), octet_length(p_harness), octet_length(p_hook_event),
			octet_length(p_category), octet_length(p_tool), octet_length(p_server), octet_length(p_tool_use_id),
			octet_length(p_cwd), octet_length(p_event_key)) > ` + strconv.Itoa(maxFieldBytes) + ` THEN
			RAISE EXCEPTION USING ERRCODE = '54000', MESSAGE = 'ctxhook: put: a name, session, path or key is at most ` + strconv.Itoa(maxFieldBytes) + ` bytes';
		END IF;
		IF p_pre IS NULL OR p_pre < 0 OR p_pre > coalesce(octet_length(p_tool) + octet_length(p_server) + octet_length(p_args) + 3, 0)
			OR coalesce(cardinality(p_docs), 0) < 1 OR cardinality(p_offs) IS DISTINCT FROM cardinality(p_docs)
			OR cardinality(p_docs) > greatest(1, (coalesce(body, 0) + ` + strconv.Itoa(DocSize-1) + `) / ` + strconv.Itoa(DocSize) + `) THEN
			RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'ctxhook: put: the pieces do not cut the body';
		END IF;
		IF EXISTS (SELECT 1 FROM pg_catalog.unnest(p_docs) WITH ORDINALITY AS p(doc, n)
			WHERE coalesce(octet_length(p.doc), 0) > ` + strconv.Itoa(maxPieceBytes) + ` + CASE WHEN p.n = 1 THEN p_pre ELSE 0 END) THEN
			RAISE EXCEPTION USING ERRCODE = '54000', MESSAGE = 'ctxhook: put: a piece is at most ` + strconv.Itoa(maxPieceBytes) + ` bytes (and the first its prefix)';
		END IF;
		RETURN QUERY WITH e AS (
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
		SELECT e.id FROM e;
	END $f$;`
