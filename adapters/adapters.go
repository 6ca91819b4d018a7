// Package adapters embeds the JavaScript adapters, so `ctxhook install
// opencode` can write the OpenCode plugin from the binary alone.
package adapters

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
)

//go:embed core/index.js
var core []byte

//go:embed opencode/index.js
var openCode []byte

//go:embed pi/index.js
var piExtension []byte

// PiMarker starts the file `ctxhook install pi` writes; only a file that
// starts with it is ever replaced or removed.
const PiMarker = "// ctxhook Pi extension, written by `ctxhook install pi`; do not edit."

// PiExtension returns the Pi extension with the installed hook client's
// path filled in, or ("") the ctxhook binary's.
func PiExtension(hookClient, ctxhook string) ([]byte, error) {
	const installed = "const INSTALLED = {};"
	if !bytes.Contains(piExtension, []byte(installed)) {
		return nil, errors.New("adapters: the Pi extension source changed shape; the installer needs updating")
	}
	installedPaths := map[string]string{"ctxhook": ctxhook}
	if hookClient != "" {
		installedPaths = map[string]string{"hookClient": hookClient}
	}
	paths, _ := json.Marshal(installedPaths)
	body := bytes.Replace(piExtension, []byte(installed), []byte("const INSTALLED = "+string(paths)+";"), 1)
	return append([]byte(PiMarker+"\n"), body...), nil
}

// OpenCodeMarker starts the file `ctxhook install opencode` writes; only a
// file that starts with it is ever replaced or removed.
const OpenCodeMarker = "// ctxhook OpenCode plugin, written by `ctxhook install opencode`; do not edit."

// OpenCodeBundle returns the OpenCode plugin as one ES module: the core
// host inlined in place of its import (OpenCode loads every file in
// plugins/ as a plugin and treats every exported function as one, so the
// core must not be a separate module there), with the installed paths of
// plugin.wasm and the ctxhook binary filled in.
//
// harness is the name the loader gives the plugin: "opencode", or a
// descendant that loads the same file ("kilo"), so that its events are
// stored under its own name.
func OpenCodeBundle(wasmPath, ctxhook, harness string) ([]byte, error) {
	const importCore = `import { Host } from "@ctxhook/core";`
	const exportCore = "export { Host, loadPlugin, ABI_VERSION };"
	const installed = "const INSTALLED = {};"
	const named = `const HARNESS = "opencode";`
	if !bytes.Contains(openCode, []byte(importCore)) || !bytes.Contains(core, []byte(exportCore)) || !bytes.Contains(openCode, []byte(installed)) ||
		!bytes.Contains(openCode, []byte(named)) {
		return nil, errors.New("adapters: the OpenCode plugin sources changed shape; the bundler needs updating")
	}
	paths, _ := json.Marshal(map[string]string{"wasm": wasmPath, "ctxhook": ctxhook})
	inlined := bytes.Replace(core, []byte(exportCore), nil, 1)
	body := bytes.Replace(openCode, []byte(importCore), nil, 1)
	body = bytes.Replace(body, []byte(installed), []byte("const INSTALLED = "+string(paths)+";"), 1)
	name, _ := json.Marshal(harness)
	body = bytes.Replace(body, []byte(named), []byte("const HARNESS = "+string(name)+";"), 1)
	var b bytes.Buffer
	b.WriteString(OpenCodeMarker + "\n")
	b.Write(inlined)
	b.WriteString("\n")
	b.Write(body)
	return b.Bytes(), nil
}
