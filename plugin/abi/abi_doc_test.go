package abi

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func abiDoc(t *testing.T) string {
	b, err := os.ReadFile("../../ABI.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDocVersionAndNames: ABI.md states this version and names every
// export, effect, tally and category the code defines.
func TestDocVersionAndNames(t *testing.T) {
	doc := abiDoc(t)
	m := regexp.MustCompile(`ABI version: \*\*(\d+)\*\*`).FindStringSubmatch(doc)
	if m == nil || m[1] != strconv.Itoa(Version) {
		t.Fatalf("ABI.md states version %v, code has %d", m, Version)
	}
	names := append([]string{ExportPrepareRaw, ExportPrepareFD, ExportHandleFD, ProxyStrip}, RequiredExports...)
	names = append(names, OpSetState, OpStoreEvent, OpTally, OpStoreChunk, OpIndexTranscript, HarnessTranscript, TallyRelayed, TallyNudges, TallyCapture, TallyShaped, TallyRefetch,
		CategoryMCP, CategoryFileRead, CategoryFileEdit, CategoryShell, CategoryWeb, CategorySearch,
		CategorySubagent, CategoryPrompt, CategorySession, CategoryError, CategoryTool,
		HarnessClaudeCode, HarnessCodex, HarnessGemini, HarnessCursor, HarnessOpenCode, HarnessMCPProxy,
		HarnessKilo, HarnessDroid, HarnessCopilot, HarnessQwen, HarnessAuggie, HarnessCline, ProxyRequest, ProxyResponse, TokenPlaceholder, DefaultTokenArg, DefaultStartTool, DefaultSkipArg, EnvNudgeEvery, OnResumeKeep, OnResumeDrop)
	names = append(names, DefaultCapturePaths...)
	for _, p := range DefaultTokenErrors {
		names = append(names, strings.ReplaceAll(p, "|", `\|`)) // as a table cell writes it
	}
	for _, n := range names {
		if !strings.Contains(doc, n) {
			t.Errorf("ABI.md does not mention %q", n)
		}
	}
	if !strings.Contains(doc, strconv.Itoa(DefaultMaxEventBytes)) {
		t.Errorf("ABI.md does not state the default max_event_bytes %d", DefaultMaxEventBytes)
	}
}

// TestDocFields: every JSON field of every message type is documented.
func TestDocFields(t *testing.T) {
	doc := abiDoc(t)
	for _, v := range []any{PrepareRequest{}, PrepareResponse{}, HandleRequest{}, HandleResponse{},
		Effect{}, Event{}, Config{}, ServerConfig{}, CaptureConfig{}, ProxyPayload{}, Unstored{}, Blob{}, File{},
		OpenCodePayload{}, OpenCodeAnswer{}, TranscriptPayload{}, TranscriptAnswer{}, Chunk{}} {
		rt := reflect.TypeOf(v)
		for i := 0; i < rt.NumField(); i++ {
			tag := strings.Split(rt.Field(i).Tag.Get("json"), ",")[0]
			if tag == "" || tag == "-" {
				continue
			}
			if !strings.Contains(doc, "`"+tag+"`") {
				t.Errorf("%s.%s: ABI.md does not document field `%s`", rt.Name(), rt.Field(i).Name, tag)
			}
		}
	}
}

// TestDocExamples: each JSON example decodes into its message type with no
// unknown field, so an example can never show a field the code lacks.
func TestDocExamples(t *testing.T) {
	doc := abiDoc(t)
	types := map[string]func() any{
		"PrepareRequest":  func() any { return &PrepareRequest{} },
		"PrepareResponse": func() any { return &PrepareResponse{} },
		"HandleRequest":   func() any { return &HandleRequest{} },
		"HandleResponse":  func() any { return &HandleResponse{} },
		"Event":           func() any { return &Effect{} }, // shown as its store_event effect
		"ProxyPayload":    func() any { return &ProxyPayload{} },
	}
	section := ""
	n := 0
	for _, block := range regexp.MustCompile("(?s)(### \\w+)|```json\n(.*?)```").FindAllStringSubmatch(doc, -1) {
		if block[1] != "" {
			section = strings.TrimPrefix(block[1], "### ")
			continue
		}
		mk, ok := types[section]
		if !ok {
			t.Errorf("JSON example under %q has no message type to check against", section)
			continue
		}
		dec := json.NewDecoder(bytes.NewReader([]byte(block[2])))
		dec.DisallowUnknownFields()
		if err := dec.Decode(mk()); err != nil {
			t.Errorf("%s example: %v", section, err)
		}
		n++
	}
	if n < len(types) {
		t.Errorf("checked %d examples, want one per message (%d)", n, len(types))
	}
}
