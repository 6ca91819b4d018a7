package engine

import (
	"encoding/json"
	"maps"
	"slices"
)

// sessionState is everything ctxhook remembers about one agent session
// between hook processes. It is one document per session, so one host
// read and one atomic write cover a whole decision.
type sessionState struct {
	// MCPCalls counts external MCP calls, for the nudge cadence.
	MCPCalls int `json:"mcp_calls,omitempty"`
	// OneShots lists categories whose one-time reminder has fired.
	OneShots []string `json:"one_shots,omitempty"`
	// Tokens holds the current relay token per MCP server: state is keyed
	// by session (the document) and server (the map key).
	Tokens map[string]string `json:"tokens,omitempty"`
	// Unconfirmed lists the servers whose token was kept across a resume
	// (or a new server process) and has not been accepted since: a server
	// that held its sessions in memory no longer knows it.
	Unconfirmed []string `json:"unconfirmed,omitempty"`
	// Upstreams names, per server, the process the proxy last said it
	// talks to (abi.ProxyPayload.Upstream).
	Upstreams map[string]string `json:"upstreams,omitempty"`
	// Retired keeps the last tokens each server rotated away from, so they
	// are still redacted if they show up again.
	Retired []string `json:"retired,omitempty"`
	// Answered maps recent MCP calls (by shape.CallHash) to the key of the
	// stored answer, oldest first, for re-fetch hints.
	Answered []answered `json:"answered,omitempty"`
	// Recent lists the MCP responses captured lately, newest last, and
	// Searches the last queries of ctxhook's search tool: what the
	// working-state block after a compaction or resume names (resume.go).
	Recent   []recentCall `json:"recent,omitempty"`
	Searches []string     `json:"searches,omitempty"`
	// BlockFor and BlockMS say why and when the last block was given: the
	// same reason again within blockAgain is one moment seen twice (ctxhook
	// installed at two levels runs each hook twice), not a new one.
	BlockFor string `json:"block_for,omitempty"`
	BlockMS  int64  `json:"block_ms,omitempty"`
	// Hinted lists the calls (by shape.CallHash) that got a re-fetch hint
	// and have not run since: one that runs all the same is a re-fetch
	// made, not avoided.
	Hinted []string `json:"hinted,omitempty"`
	// Pending: the context was compacted at a moment the harness could
	// not take the block; the next hook that can gives it.
	Pending bool `json:"pending,omitempty"`
}

type answered struct {
	Hash string `json:"h"`
	Key  string `json:"k"`
}

// maxAnswered bounds Answered: a repeat of a call 256 calls ago is found
// by search, not by a hint.
const maxAnswered = 256

// remember records that the call hash was answered by event key.
func (s *sessionState) remember(hash, key string) {
	s.Answered = slices.DeleteFunc(s.Answered, func(a answered) bool { return a.Hash == hash })
	s.Answered = append(s.Answered, answered{hash, key})
	if len(s.Answered) > maxAnswered {
		s.Answered = s.Answered[len(s.Answered)-maxAnswered:]
	}
}

// maxHinted bounds Hinted: a hint 64 hints ago whose call never ran is
// counted as avoided.
const maxHinted = 64

// hinted records that the call hash got a re-fetch hint.
func (s *sessionState) hinted(hash string) {
	if slices.Contains(s.Hinted, hash) {
		return
	}
	s.Hinted = append(s.Hinted, hash)
	if len(s.Hinted) > maxHinted {
		s.Hinted = s.Hinted[len(s.Hinted)-maxHinted:]
	}
}

// answer returns the key of the stored answer to a call, or "".
func (s *sessionState) answer(hash string) string {
	if hash == "" {
		return ""
	}
	for _, a := range s.Answered {
		if a.Hash == hash {
			return a.Key
		}
	}
	return ""
}

// maxRetired bounds Retired: a token that rotated away 32 calls ago is
// redacted by the catalogue rules or not at all.
const maxRetired = 32

func stateKey(session string) string { return "session/" + session }

func decodeState(raw string) (sessionState, error) {
	var s sessionState
	if raw == "" {
		return s, nil
	}
	err := json.Unmarshal([]byte(raw), &s)
	return s, err
}

func (s *sessionState) encode() string {
	b, _ := json.Marshal(s)
	return string(b)
}

func (s *sessionState) setToken(server, tok string) (changed bool) {
	old := s.Tokens[server]
	if old == tok {
		return false
	}
	if s.Tokens == nil {
		s.Tokens = map[string]string{}
	}
	s.Tokens[server] = tok
	s.retire(old)
	s.confirm(server) // a token the server just issued
	return true
}

// retire keeps tok for redaction only.
func (s *sessionState) retire(tok string) {
	if tok != "" && !slices.Contains(s.Retired, tok) {
		s.Retired = append(s.Retired, tok)
		if len(s.Retired) > maxRetired {
			s.Retired = s.Retired[len(s.Retired)-maxRetired:]
		}
	}
}

// dropToken retires server's token: no later call gets it.
func (s *sessionState) dropToken(server string) bool {
	tok, ok := s.Tokens[server]
	if !ok {
		return false
	}
	delete(s.Tokens, server)
	s.retire(tok)
	s.confirm(server)
	return true
}

// unconfirm marks server's token as kept from before a resume.
func (s *sessionState) unconfirm(server string) bool {
	if s.Tokens[server] == "" || slices.Contains(s.Unconfirmed, server) {
		return false
	}
	s.Unconfirmed = append(s.Unconfirmed, server)
	slices.Sort(s.Unconfirmed)
	return true
}

// confirm says server's token is live again; true when it was not.
func (s *sessionState) confirm(server string) bool {
	i := slices.Index(s.Unconfirmed, server)
	if i < 0 {
		return false
	}
	s.Unconfirmed = slices.Delete(s.Unconfirmed, i, i+1)
	if len(s.Unconfirmed) == 0 {
		s.Unconfirmed = nil
	}
	return true
}

// known lists every token value this session's relay knows, in one
// order for the same tokens (decision.redactor compares the lists).
func (s *sessionState) known() []string {
	out := slices.Clone(s.Retired)
	for _, server := range slices.Sorted(maps.Keys(s.Tokens)) {
		out = append(out, s.Tokens[server])
	}
	return out
}
