package abi

import (
	"unicode/utf8"
	"unsafe"
)

// ResponseFormTextBlock is Event.ResponseForm for a response that was
// exactly one MCP text block, [{"type":"text","text": T}], T the
// event's Text: the plugin sends Text alone, and a reader that needs the
// response rebuilds it with TextBlockResponse. Large results are nearly
// always this shape (Claude Code hands hooks the content blocks), and
// sending, spooling and storing the response beside its text doubled
// every byte of them.
const ResponseFormTextBlock = "text-block"

// ResponseFormExcluded is Event.ResponseForm for a call the capture
// settings keep out of the store (CaptureConfig): a row of metadata, with
// no args, response or text, ResponseBytes its size.
const ResponseFormExcluded = "excluded"

// TextBlockPrefix and TextBlockSuffix frame a text block response around
// its escaped text.
const (
	TextBlockPrefix = `[{"type":"text","text":`
	TextBlockSuffix = `}]`
)

// TextBlockResponse is the response a ResponseFormTextBlock event stands
// for: the text as a JSON string (AppendJSONString) in one text block.
func TextBlockResponse(text string) string {
	b := make([]byte, 0, len(TextBlockPrefix)+len(text)+len(text)/16+len(TextBlockSuffix)+2)
	b = append(b, TextBlockPrefix...)
	b = AppendJSONString(b, text)
	return string(append(b, TextBlockSuffix...))
}

var needsEscape = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return
}()

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s to dst as a JSON string token, escaping
// only what JSON requires: quote and backslash, \n \r \t, and any other
// control byte as \u00XX; invalid UTF-8 becomes U+FFFD, as
// encoding/json writes it. This is the one encoding every host and the
// plugin use, so a rebuilt response is the same bytes everywhere.
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = AppendJSONStringBody(dst, s)
	return append(dst, '"')
}

// AppendJSONStringBody is AppendJSONString without the quotes, for a
// string written in pieces (a body read part by part). A piece must not
// end inside a UTF-8 sequence, or that sequence is taken as invalid.
func AppendJSONStringBody(dst []byte, s string) []byte {
	valid := utf8.ValidString(s)
	start := 0
	for i := 0; i < len(s); {
		i += plainRun(s, i)
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if !needsEscape[c] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		if valid {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\ufffd"...)
			i++
			start = i
			continue
		}
		i += size
	}
	return append(dst, s[start:]...)
}

// plainRun is how many bytes from s[i] on need no escape (no quote,
// backslash or control byte), eight at a time while it can: inside wasm,
// Go code costs several times more per byte than a word operation.
func plainRun(s string, i int) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	start := i
	for i+8 <= len(s) {
		w := *(*uint64)(unsafe.Pointer(unsafe.StringData(s[i : i+8])))
		quote := w ^ (lo * '"')
		slash := w ^ (lo * '\\')
		ctl := (w - lo*0x20) &^ w // a byte < 0x20 (its high bit clear)
		if ((quote-lo)&^quote|(slash-lo)&^slash|ctl)&hi != 0 {
			break
		}
		i += 8
	}
	for i < len(s) && !needsEscape[s[i]] {
		i++
	}
	return i - start
}
