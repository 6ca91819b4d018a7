// Prints, for every conformance case, the plugin's raw ctxhook_handle
// output through this JS host: one JSON line {name, out} or {name, err}.
// plugin/jshost_test.go compares these bytes with the Go host's.
// Usage: raw.mjs <corpus dir> [plugin.wasm]
import { loadPlugin } from "../index.js";
import { loadCorpus } from "./corpus.mjs";

const plugin = await loadPlugin(process.argv[3]);
for (const c of loadCorpus(process.argv[2])) {
  try {
    const out = await plugin.callRaw("ctxhook_handle", JSON.stringify(c.req));
    process.stdout.write(JSON.stringify({ name: c.name, out }) + "\n");
  } catch (e) {
    process.stdout.write(JSON.stringify({ name: c.name, err: String(e.message) }) + "\n");
  }
}
plugin.close();
