// @ctxhook/core: the JavaScript host for ctxhook's plugin.wasm.
//
// It loads the same plugin.wasm the Go host runs (with @extism/extism),
// asks it for decisions, and applies the effects through `ctxhook io`, so
// state and captured events land in the same files and store as every
// other adapter's, and `ctxhook search` finds them. It decides nothing
// itself: all logic is in the plugin.
//
// Hosts must never break the agent: decide() never throws. On any failure
// it returns an empty decision and the reason, and the caller goes on as
// if ctxhook were not there.
import createPlugin from "@extism/extism";
import { WASI } from "node:wasi";
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import path from "node:path";

// Bun's node:wasi (OpenCode runs plugins in Bun 1.3.14) differs from
// Node's in two ways that stop a Go reactor module from starting:
//   - it has no initialize(), so @extism/extism runs _initialize without
//     giving WASI the module's memory (the Go runtime's first clock read
//     then fails);
//   - its random_get fills nothing useful and returns the byte count, not
//     errno 0, so the Go runtime aborts.
// These patches give both Node's meaning, on Bun only.
if (process.versions.bun) patchBunWASI();

function patchBunWASI() {
  if (typeof WASI.prototype.initialize !== "function" && typeof WASI.prototype.setMemory === "function") {
    WASI.prototype.initialize = function initialize(instance) {
      this.setMemory(instance.exports.memory);
      instance.exports._initialize?.();
    };
  }
  const own = Symbol("ctxhook.wasiImport");
  Object.defineProperty(WASI.prototype, "wasiImport", {
    configurable: true,
    get() {
      return this[own];
    },
    set(imports) {
      const wasi = this;
      this[own] = {
        ...imports,
        random_get(ptr, len) {
          const bytes = new Uint8Array(wasi.memory.buffer, ptr, len);
          for (let i = 0; i < len; i += 65536) crypto.getRandomValues(bytes.subarray(i, Math.min(len, i + 65536)));
          return 0;
        },
      };
    },
  });
}

// The ABI this host speaks (ABI.md). A plugin of another version is refused.
const ABI_VERSION = 1;
const EXPORTS = ["ctxhook_abi_version", "ctxhook_prepare", "ctxhook_handle"];

// Where plugin.wasm is looked for when no path is given: next to this
// file (a published package), then the repository's plugin/ directory.
function defaultWasmPaths() {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return [path.join(here, "plugin.wasm"), path.join(here, "..", "..", "plugin", "plugin.wasm")];
}

// loadPlugin compiles plugin.wasm and checks its ABI version. Calls are
// serialised: one wasm instance runs one call at a time.
async function loadPlugin(wasmPath) {
  const candidates = wasmPath ? [wasmPath] : defaultWasmPaths();
  let data, lastErr;
  for (const p of candidates) {
    try {
      data = await readFile(p);
      break;
    } catch (err) {
      lastErr = err;
    }
  }
  if (!data) throw new Error(`ctxhook: plugin.wasm not found (${candidates.join(", ")}): ${lastErr?.message}`);
  const plugin = await createPlugin({ wasm: [{ data }] }, { useWasi: true, runInWorker: false });
  for (const name of EXPORTS) {
    if (!(await plugin.functionExists(name))) throw new Error(`ctxhook: plugin.wasm lacks export ${name}`);
  }
  let queue = Promise.resolve();
  const call = (name, input) => {
    const run = queue.then(async () => {
      const out = await plugin.call(name, input);
      return out ? out.text() : "";
    });
    queue = run.catch(() => {});
    return run;
  };
  const version = Number(await call("ctxhook_abi_version", ""));
  if (version !== ABI_VERSION) {
    throw new Error(`ctxhook: plugin.wasm speaks ABI ${version}, this host speaks ${ABI_VERSION}`);
  }
  return {
    /** callRaw returns the export's raw output: what the conformance test compares. */
    callRaw: call,
    prepare: async (req) => JSON.parse(await call("ctxhook_prepare", JSON.stringify(req))),
    handle: async (req) => JSON.parse(await call("ctxhook_handle", JSON.stringify(req))),
    close: () => plugin.close(),
  };
}

// ctxhookIO runs `ctxhook io <args>` with input on stdin and parses its
// one-object answer.
function ctxhookIO(bin, args, input, env, timeoutMs) {
  return new Promise((resolve, reject) => {
    const child = execFile(bin, ["io", ...args], { env, timeout: timeoutMs, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err) {
        reject(new Error(`${bin} io ${args[0]}: ${stderr.trim() || err.message}`));
        return;
      }
      try {
        resolve(JSON.parse(stdout));
      } catch (e) {
        reject(new Error(`${bin} io ${args[0]}: bad answer: ${e.message}`));
      }
    });
    child.stdin.end(input ?? "");
  });
}

// Host decides hook calls with one loaded plugin.
class Host {
  /**
   * @param {object} [opts]
   * @param {string} [opts.wasm]     path of plugin.wasm (else CTXHOOK_WASM, else next to this package)
   * @param {string} [opts.ctxhook]  the ctxhook binary (else CTXHOOK_BIN, else "ctxhook" on PATH)
   * @param {object} [opts.env]      environment (else process.env)
   * @param {(msg: string) => void} [opts.log] where one-line warnings go (else stderr)
   */
  static async load(opts = {}) {
    const env = opts.env ?? process.env;
    const plugin = await loadPlugin(opts.wasm ?? env.CTXHOOK_WASM);
    return new Host(plugin, opts.ctxhook ?? env.CTXHOOK_BIN ?? "ctxhook", env, opts.log);
  }

  constructor(plugin, bin, env, log) {
    this.plugin = plugin;
    this.bin = bin;
    this.env = env;
    this.log = log ?? ((msg) => process.stderr.write(`ctxhook: ${msg}\n`));
    this.timeoutMs = 5000;
  }

  // ctxhookEnv is the CTXHOOK_* variables the plugin may read.
  ctxhookEnv() {
    const out = {};
    for (const [k, v] of Object.entries(this.env)) {
      if (k.startsWith("CTXHOOK_") && v !== "" && v !== undefined) out[k] = v;
    }
    return out;
  }

  /**
   * decide runs one hook call: prepare, load config and state, handle,
   * apply the effects. It never throws.
   * @returns {Promise<{stdout: string, exitCode: number, effects: object[], error?: string, warnings: string[]}>}
   */
  async decide(harness, event, payload) {
    const empty = { stdout: "", exitCode: 0, effects: [], warnings: [] };
    try {
      const prep = await this.plugin.prepare({ harness, event, payload });
      let loaded;
      try {
        loaded = await ctxhookIO(this.bin, ["load", ...prep.state_keys], "", this.env, this.timeoutMs);
      } catch (err) {
        loaded = { state_error: err.message, config: {} };
      }
      const req = {
        harness, event, payload,
        config: loaded.config ?? {},
        env: this.ctxhookEnv(),
        state: loaded.state ?? {},
        now_ms: Date.now(),
      };
      if (loaded.state_error) req.state_error = loaded.state_error;
      const resp = await this.plugin.handle(req);
      const warnings = [...(loaded.warnings ?? [])];
      if (loaded.state_error) warnings.push(loaded.state_error);
      if (resp.stderr) warnings.push(resp.stderr);
      if (resp.effects?.length) {
        try {
          const applied = await ctxhookIO(this.bin, ["apply"], JSON.stringify(resp.effects), this.env, this.timeoutMs);
          warnings.push(...(applied.warnings ?? []));
        } catch (err) {
          warnings.push(`effects not applied: ${err.message}`);
        }
      }
      for (const w of warnings) this.log(w);
      return { stdout: resp.stdout ?? "", exitCode: resp.exit_code ?? 0, effects: resp.effects ?? [], warnings };
    } catch (err) {
      this.log(`${harness} ${event}: ${err.message}; the agent continues without ctxhook`);
      return { ...empty, error: err.message };
    }
  }

  close() {
    return this.plugin.close();
  }
}

export { Host, loadPlugin, ABI_VERSION };
