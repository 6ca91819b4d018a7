// Reads ctxhook's conformance corpus (testdata/conformance) the way the Go
// reader (plugin/conformance) does, so the JS host runs the very same
// requests. Test-only: not part of the published package.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const NOW_MS = 1764000000000;
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../testdata/conformance");

// parseTxtar splits a txtar archive into its comment and files.
export function parseTxtar(text) {
  const files = {};
  let comment = "";
  let name = null;
  let data = [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const flush = () => {
    if (name !== null) files[name] = data.length ? data.join("\n") + "\n" : "";
  };
  for (const line of lines) {
    const m = /^-- (.+) --$/.exec(line);
    if (m) {
      if (name === null) comment = data.length ? data.join("\n") + "\n" : "";
      else flush();
      name = m[1].trim();
      data = [];
      continue;
    }
    data.push(line);
  }
  if (name === null) comment = data.join("\n");
  else flush();
  return { comment, files };
}

function walk(dir) {
  const out = [];
  for (const e of readdirSync(dir).sort()) {
    const p = path.join(dir, e);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (p.endsWith(".txtar")) out.push(p);
  }
  return out;
}

// loadCorpus returns every case with the HandleRequest the Go reader builds.
export function loadCorpus(root = ROOT) {
  return walk(root).map((file) => {
    const rel = path.relative(root, file).replace(/\.txtar$/, "").split(path.sep);
    const [harness, event] = rel;
    const { files } = parseTxtar(readFileSync(file, "utf8"));
    const req = { harness, event, payload: files["payload.json"], config: {}, now_ms: NOW_MS };
    if (files["config.json"] !== undefined) req.config = JSON.parse(files["config.json"]);
    if (files["state.json"] !== undefined) req.state = JSON.parse(files["state.json"]);
    if (files["files.json"] !== undefined) {
      req.files = JSON.parse(files["files.json"]).map((f) => ({ ...f, bytes: Buffer.byteLength(f.content ?? "", "utf8") }));
    }
    if (files["hook_server"] !== undefined) req.hook_server = files["hook_server"].trim();
    if (files["state_error"] !== undefined) req.state_error = files["state_error"].trim() || "state unreadable";
    if (files["env"] !== undefined) {
      req.env = {};
      for (const line of files["env"].split("\n")) {
        const i = line.indexOf("=");
        if (i >= 0) req.env[line.slice(0, i)] = line.slice(i + 1);
      }
    }
    return { name: rel.join("/"), file, files, req };
  });
}
