// The whole conformance corpus through the JS host's plugin.wasm: every
// case must give exactly the expected stdout, exit code and effects (or
// the expected error), as it does through the Go host.
import test, { after } from "node:test";
import assert from "node:assert/strict";
import { loadPlugin } from "../index.js";
import { readFileSync } from "node:fs";
import { loadCorpus, ROOT } from "../conformance/corpus.mjs";

const cases = loadCorpus();

test("corpus is not empty and covers every harness", () => {
  // The one list of harnesses (harness-configs/harnesses.json), the
  // proxy's requests among them; a library speaks its dialect's, and a
  // client reached only through the proxy is the proxy's requests.
  const registry = JSON.parse(readFileSync(new URL("../../../harness-configs/harnesses.json", import.meta.url)));
  const harnesses = new Set(cases.map((c) => c.req.harness));
  assert.ok(registry.length >= 5, `registry of ${registry.length}`);
  for (const h of registry.filter((r) => r.kind !== "library" && !(r.kind === "proxy-only" && r.dialect)).map((r) => r.name)) {
    assert.ok(harnesses.has(h), `no ${h} cases (corpus ${ROOT})`);
  }
});

// One test per case, at the top level (Bun's node:test runs no nested
// tests), all on one loaded plugin.
const plugin = await loadPlugin();
after(() => plugin.close());

for (const c of cases) {
  test(`case ${c.name}`, async () => {
    let resp, err;
    try {
      resp = await plugin.handle(c.req);
    } catch (e) {
      err = e;
    }
    if (c.files.error !== undefined) {
      assert.ok(err, "want an error");
      assert.match(err.message, new RegExp(c.files.error.trim().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
      return;
    }
    assert.ifError(err);
    assert.equal(resp.stdout, c.files.stdout);
    assert.equal(`${resp.exit_code}\n`, c.files.exit_code);
    assert.deepEqual(resp.effects, JSON.parse(c.files["effects.json"]));
  });
}
