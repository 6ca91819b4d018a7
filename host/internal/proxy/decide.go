package proxy

import "encoding/json"

// proxyPayload is abi.ProxyPayload's JSON, written without re-encoding
// the message: it may be tens of MiB, and it is valid JSON already (the
// proxy checked every line it read).
func proxyPayload(session, server string, msg, request []byte) []byte {
	s, _ := json.Marshal(session)
	n, _ := json.Marshal(server)
	b := make([]byte, 0, len(msg)+len(request)+len(s)+len(n)+64)
	b = append(append(append(b, `{"session_id":`...), s...), `,"server":`...)
	b = append(append(append(b, n...), `,"message":`...), msg...)
	if len(request) > 0 {
		b = append(append(b, `,"request":`...), request...)
	}
	return append(b, '}')
}
