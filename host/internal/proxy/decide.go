package proxy

import "encoding/json"

// proxyPayload is abi.ProxyPayload's JSON, written without re-encoding
// the message: it may be tens of MiB, and it is valid JSON already (the
// proxy checked every line it read).
// upstream names the server's process ("" when the proxy cannot see it).
func proxyPayload(session, server, upstream string, msg, request []byte) []byte {
	s, _ := json.Marshal(session)
	n, _ := json.Marshal(server)
	b := make([]byte, 0, len(msg)+len(request)+len(s)+len(n)+len(upstream)+80)
	b = append(append(append(b, `{"session_id":`...), s...), `,"server":`...)
	b = append(b, n...)
	if upstream != "" {
		u, _ := json.Marshal(upstream)
		b = append(append(b, `,"upstream":`...), u...)
	}
	b = append(append(b, `,"message":`...), msg...)
	if len(request) > 0 {
		b = append(append(b, `,"request":`...), request...)
	}
	return append(b, '}')
}
