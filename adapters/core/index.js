// @ctxhook/core: the JavaScript host for ctxhook's plugin.wasm.
//
// It loads the same plugin.wasm the Go host runs (with @extism/extism),
// asks it for decisions, and applies the effects through `ctxhook io`, so
// state and captured events land in the same files and store as every
// other adapter's, and `ctxhook search` finds them. It decides nothing
// itself: all logic is in the plugin.
//
// That path costs two launches of the ctxhook binary per call (io load,
// io apply: tens of milliseconds). So decide() first asks the ctxhook
// daemon, which runs the same plugin.wasm warm, over its Unix socket (one
// round trip, as the Go hook client does), and takes the in-process path
// only when the daemon cannot answer: missing (it is started for the next
// calls), of another build, hung, or misbehaving.
//
// Hosts must never break the agent: decide() never throws. On any failure
// it returns an empty decision and the reason, and the caller goes on as
// if ctxhook were not there.
import createPlugin from "@extism/extism";
import { WASI } from "node:wasi";
import { execFile, spawn } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import { lstatSync, readFileSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import net from "node:net";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
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
    /** sha256 of the plugin.wasm bytes loaded: the daemon is asked only if it runs the same. */
    sha256: createHash("sha256").update(data).digest("hex"),
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
    // A binary that is missing, or exits before reading its stdin (io
    // load, io socket), closes the pipe: the EPIPE is reported by the
    // callback above, and must not reach the host as an uncaught error.
    child.stdin.on("error", () => {});
    child.stdin.end(input ?? "");
  });
}

// The daemon's wire format (host/internal/wire): a big-endian uint32
// field count, then per field a big-endian uint32 length and the bytes.
// Its limits are the Go reader's: a frame past them is a broken daemon.
const WIRE_MAX_FIELDS = 64;
const WIRE_MAX_FIELD = (128 << 20) + (1 << 16);

function uint32(n) {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32BE(n);
  return b;
}

// encodeFrame returns a frame as the buffers to write in order: the small
// fields joined with their lengths into one, a large one (a payload) as
// it is, not copied into the frame first.
function encodeFrame(fields) {
  const out = [];
  let small = [uint32(fields.length)];
  for (const f of fields) {
    small.push(uint32(f.length));
    if (f.length < 64 << 10) {
      small.push(f);
      continue;
    }
    out.push(Buffer.concat(small), f);
    small = [];
  }
  if (small.length) out.push(Buffer.concat(small));
  return out;
}

// FrameReader collects one frame from a socket's chunks. The chunks are
// joined only once a length says enough has arrived, so a large answer is
// copied a few times, not once per chunk.
class FrameReader {
  constructor() {
    this.chunks = [];
    this.size = 0;
    this.need = 4;
  }

  /** push adds a chunk; it returns the fields once the frame is whole, else null. Throws on a malformed frame. */
  push(chunk) {
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size < this.need) return null;
    const buf = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    this.chunks = [buf];
    return this.parse(buf);
  }

  parse(buf) {
    const count = buf.readUInt32BE(0);
    if (count > WIRE_MAX_FIELDS) throw new Error("daemon: malformed answer (field count)");
    const fields = [];
    let off = 4;
    for (let i = 0; i < count; i++) {
      if (buf.length < off + 4) return this.wait(off + 4);
      const n = buf.readUInt32BE(off);
      if (n > WIRE_MAX_FIELD) throw new Error("daemon: malformed answer (field length)");
      if (buf.length < off + 4 + n) return this.wait(off + 4 + n);
      fields.push(buf.subarray(off + 4, off + 4 + n));
      off += 4 + n;
    }
    // One request is in flight per connection: bytes past its answer
    // mean the stream is not what this host thinks it is.
    if (off !== buf.length) throw new Error("daemon: malformed answer (trailing bytes)");
    return fields;
  }

  wait(need) {
    this.need = need;
    return null;
  }
}

// DaemonError is a request the daemon did not answer. retry: worth once
// more on a new connection (a kept one the daemon closed while it was
// idle, KeepIdle); a timeout is not, the daemon is slow or hung and a
// second wait would only double the agent's. missing: no daemon listens,
// and one should be started.
class DaemonError extends Error {
  constructor(message, { retry = false, missing = false } = {}) {
    super(message);
    this.retry = retry;
    this.missing = missing;
  }
}

// ownSocket reports whether path is a Unix socket of this user's: a
// payload (tool output, the environment's secrets) is never handed to a
// socket someone else planted. The Go clients check the same.
function ownSocket(path) {
  try {
    const st = lstatSync(path);
    return st.isSocket() && (typeof process.getuid !== "function" || st.uid === process.getuid());
  } catch {
    return false;
  }
}

// DaemonClient asks the daemon for decisions over kept connections, one
// request in flight on each: a call finds an idle one or opens another,
// so concurrent hooks (parallel tool calls) never wait for each other.
class DaemonClient {
  constructor(socket, handshake) {
    this.socket = socket;
    this.handshake = Buffer.from(handshake);
    this.idle = [];
  }

  /**
   * ask sends [handshake, ...fields] and returns the answer's fields.
   * Throws DaemonError when there is no answer.
   */
  async ask(fields, waitMs) {
    const frame = encodeFrame([this.handshake, ...fields]);
    const kept = this.idle.pop();
    if (kept) {
      try {
        return this.keep(kept, await exchange(kept, frame, waitMs));
      } catch (err) {
        kept.destroy();
        if (!err.retry) throw err;
      }
    }
    const conn = await this.dial(waitMs);
    try {
      return this.keep(conn, await exchange(conn, frame, waitMs));
    } catch (err) {
      conn.destroy();
      throw err;
    }
  }

  // keep puts a connection back for the next request; it returns answer.
  keep(conn, answer) {
    if (this.idle.length < 4 && !conn.destroyed) this.idle.push(conn);
    else conn.destroy();
    return answer;
  }

  dial(waitMs) {
    if (!ownSocket(this.socket)) return Promise.reject(new DaemonError("daemon: no socket", { missing: true }));
    return new Promise((resolve, reject) => {
      const conn = net.createConnection({ path: this.socket });
      const timer = setTimeout(() => {
        conn.destroy();
        reject(new DaemonError("daemon: connect timed out"));
      }, waitMs);
      conn.once("connect", () => {
        clearTimeout(timer);
        conn.removeAllListeners("error");
        // An idle connection must neither keep the process alive (an
        // Agent SDK script would wait for the daemon to close it) nor
        // crash it with an unhandled error when the daemon goes away.
        conn.on("error", () => {});
        conn.on("close", () => this.forget(conn));
        conn.unref();
        resolve(conn);
      });
      conn.once("error", (err) => {
        clearTimeout(timer);
        conn.destroy();
        // Nothing listens (a killed daemon's socket file): start one.
        reject(new DaemonError(`daemon: ${err.message}`, { missing: err.code === "ECONNREFUSED" || err.code === "ENOENT" }));
      });
    });
  }

  // forget drops a connection the daemon closed while it was idle.
  forget(conn) {
    const i = this.idle.indexOf(conn);
    if (i >= 0) this.idle.splice(i, 1);
  }

  close() {
    for (const conn of this.idle.splice(0)) conn.destroy();
  }
}

// exchange writes one request frame on conn and reads the answer frame,
// within waitMs. Its timer keeps the process alive meanwhile (the socket
// itself is unref'd).
function exchange(conn, frame, waitMs) {
  return new Promise((resolve, reject) => {
    const reader = new FrameReader();
    const done = (err, fields) => {
      clearTimeout(timer);
      conn.off("data", onData);
      conn.off("close", onClose);
      conn.off("error", onError);
      if (err) reject(err);
      else resolve(fields);
    };
    const onData = (chunk) => {
      let fields;
      try {
        fields = reader.push(chunk);
      } catch (err) {
        done(new DaemonError(err.message));
        return;
      }
      if (fields) done(null, fields);
    };
    // Closed (or reset) before a byte of the answer came: on a kept
    // connection, the daemon had closed it while idle, and the request is
    // sent again on a new one (its CTXHOOK_REQUEST_ID keeps a request the
    // daemon did take from being stored twice).
    const onClose = () => done(new DaemonError("daemon: connection closed", { retry: reader.size === 0 }));
    const onError = (err) => done(new DaemonError(`daemon: ${err.message}`, { retry: reader.size === 0 }));
    const timer = setTimeout(() => done(new DaemonError(`daemon: no answer within ${waitMs} ms`)), waitMs);
    conn.on("data", onData);
    conn.on("close", onClose);
    conn.on("error", onError);
    if (conn.destroyed) {
      onClose();
      return;
    }
    for (const piece of frame) conn.write(piece);
  });
}

// daemonWait is how long a decision waits for the daemon before it is
// decided in-process, as the Go hook client waits: 3 s, a second more per
// 4 MiB of payload (a daemon decides tens of MB/s), and never past the
// hook's budget. The daemon is told this deadline, and answers "no
// decision" a little before it rather than leave the host guessing.
function daemonWait(payloadBytes, budgetMs) {
  return Math.min(3000 + Math.floor(payloadBytes / (4 << 20)) * 1000, budgetMs);
}

// PLUGIN_VARS are the variables the plugin reads by name (hookproto.PluginVars).
const PLUGIN_VARS = ["CTXHOOK_NUDGE_EVERY", "CTXHOOK_CAPTURE"];
const SENSITIVE_WORDS = ["PASS", "PWD", "SECRET", "TOKEN", "KEY", "AUTH", "COOKIE", "CREDENTIAL", "SESSION"];

// sensitive reports whether a variable may hold a secret the plugin
// redacts (hookproto.Sensitive): a name that could name one, a value
// long enough to be redacted.
function sensitive(name, value) {
  if (value.length < 8) return false;
  const upper = name.toUpperCase();
  return SENSITIVE_WORDS.some((w) => upper.includes(w));
}

// hookBudget is CTXHOOK_HOOK_DEADLINE_MS when it is a positive number of
// milliseconds, else 10 s (budget.Hook).
function hookBudget(env) {
  const ms = Number(env.CTXHOOK_HOOK_DEADLINE_MS || 0);
  return Number.isInteger(ms) && ms > 0 ? ms : 10000;
}

// The daemon answers "no decision" this long before the deadline it is
// told (its answerMargin); the host waits that and a little more.
const DAEMON_GRACE_MS = 250;

// How often a Host may start a daemon: spawners racing a starting daemon
// are harmless (its lock), but each costs a process.
const SPAWN_EVERY_MS = 10000;

// After a daemon that failed otherwise than by being absent (it timed out,
// broke the connection, answered garbage), calls are decided in-process
// this long before it is asked again: a hung daemon costs one wait, not
// one per call.
const DOWN_MS = 2000;

// npmBinary is the ctxhook binary of the npm package ctxhook (an optional
// peer dependency), when npm installed it in this package's installation
// (its platform package carries the binary), or null. Never
// require("ctxhook"): that walks up every ancestor's node_modules, and a
// project under /tmp would run whatever another user put in
// /tmp/node_modules/ctxhook.
function npmBinary() {
  try {
    const dir = installedPackage("ctxhook", path.dirname(fileURLToPath(import.meta.url)));
    return dir ? createRequire(import.meta.url)(path.join(dir, "index.js")).binaryPath() : null;
  } catch {
    return null;
  }
}

// installedPackage returns the real directory of package name as npm
// installed it for the package at from, or null: in from's node_modules
// or one above it, up to the outermost node_modules on from's real path
// (the installation's: a project's, a global prefix's, an npx cache's),
// never above; a candidate whose real path leaves that node_modules, or
// that another account owns, is refused. The ctxhook package finds its
// platform package by the same rule.
function installedPackage(name, from) {
  const real = realpathSync(from);
  let top = null;
  for (let d = real; d !== path.dirname(d); d = path.dirname(d)) {
    if (path.basename(d) === "node_modules") top = d;
  }
  const root = top ? path.dirname(top) : real;
  const within = top ?? path.join(real, "node_modules");
  const owner = statSync(real).uid;
  for (let dir = real; ; dir = path.dirname(dir)) {
    if (path.basename(dir) !== "node_modules") {
      try {
        const cand = realpathSync(path.join(dir, "node_modules", ...name.split("/")));
        const pkg = JSON.parse(readFileSync(path.join(cand, "package.json"), "utf8"));
        if (pkg.name === name && statSync(cand).uid === owner && cand.startsWith(within + path.sep)) return cand;
      } catch {}
    }
    if (dir === root || dir === path.dirname(dir)) return null;
  }
}

// ownBinary says why the binary CTXHOOK_BIN names must not be run, or
// null when it may: every link on the way is this user's, and the file at
// the end is a regular file of this user's that no one else may write, in
// a directory of this user's that no one else may write. That binary gets
// every payload whole and decides what is stored, so a variable alone
// must not choose a file another user planted or can rewrite (as
// ctxhook-hook checks it). Windows has no such bits here: not checked.
function ownBinary(file) {
  if (typeof process.geteuid !== "function") return null;
  const uid = process.geteuid();
  let p = path.resolve(file);
  try {
    for (let hops = 0; hops < 40; hops++) {
      const st = lstatSync(p);
      if (st.isSymbolicLink()) {
        if (st.uid !== uid) return `${p} is a symbolic link of uid ${st.uid}, not of this user (${uid})`;
        p = path.resolve(path.dirname(p), readlinkSync(p));
        continue;
      }
      if (!st.isFile()) return `${p} is not a regular file`;
      for (const [name, s] of [[p, st], [path.dirname(p), statSync(path.dirname(p))]]) {
        if (s.uid !== uid) return `${name} is owned by uid ${s.uid}, not by this user (${uid})`;
        if (s.mode & 0o022) return `${name} is writable by others (mode ${(s.mode & 0o777).toString(8)})`;
      }
      return null;
    }
    return `${file}: too many symbolic links`;
  } catch (e) {
    return `${file}: ${e.code ?? e.message}`;
  }
}

// Host decides hook calls with one loaded plugin.
class Host {
  /**
   * @param {object} [opts]
   * @param {string} [opts.wasm]     path of plugin.wasm (else the one next to this package). No
   *                                 environment variable picks it: a variable anything in the
   *                                 harness's environment can set would choose what decides,
   *                                 redaction included.
   * @param {string} [opts.ctxhook]  the ctxhook binary (else CTXHOOK_BIN, else the one the npm package
   *                                 ctxhook installed, else "ctxhook" on PATH)
   * @param {object} [opts.env]      environment (else process.env)
   * @param {(msg: string) => void} [opts.log] where one-line warnings go (else stderr)
   * @param {boolean} [opts.daemon]  false: never ask the daemon, decide every call in-process
   *                                 (also when CTXHOOK_NO_DAEMON is set)
   */
  static async load(opts = {}) {
    const env = opts.env ?? process.env;
    const plugin = await loadPlugin(opts.wasm);
    let bin = opts.ctxhook;
    if (bin === undefined && env.CTXHOOK_BIN) {
      const why = ownBinary(env.CTXHOOK_BIN);
      if (why === null) bin = env.CTXHOOK_BIN;
      else (opts.log ?? ((msg) => process.stderr.write(`ctxhook: ${msg}\n`)))(`ignoring CTXHOOK_BIN (${why}); using the installed ctxhook`);
    }
    return new Host(plugin, bin ?? npmBinary() ?? "ctxhook", env, opts.log, opts);
  }

  constructor(plugin, bin, env, log, opts = {}) {
    this.plugin = plugin;
    this.bin = bin;
    this.env = env;
    this.log = log ?? ((msg) => process.stderr.write(`ctxhook: ${msg}\n`));
    this.timeoutMs = 5000;
    this.spawnedAt = -Infinity;
    this.downUntil = 0;
    // Where the daemon listens and which build it must be: asked once,
    // now, so the first decision rarely waits for it.
    const useDaemon = opts.daemon !== false && !env.CTXHOOK_NO_DAEMON;
    this.daemon = useDaemon ? this.findDaemon() : Promise.resolve(null);
  }

  // findDaemon asks the ctxhook binary where its daemon listens (`ctxhook
  // io socket`). It resolves to null, never rejects, when the daemon
  // must not be asked: a binary without io socket, or one whose plugin is
  // not the plugin.wasm loaded here (its daemon would decide with other
  // code than this host's in-process fallback).
  async findDaemon() {
    let info;
    try {
      info = await ctxhookIO(this.bin, ["socket"], "", this.env, this.timeoutMs);
    } catch {
      return null; // the in-process path says what is wrong with the binary
    }
    if (!info?.socket || !info.handshake) return null;
    if (info.wasm_sha256 !== this.plugin.sha256) {
      this.log(`the plugin.wasm loaded here is not the one ${this.bin} runs, so its daemon is not asked and every call is decided in-process; install them from one release`);
      return null;
    }
    const bin = info.daemon_bin || this.bin;
    // No daemon yet (OpenCode just started, none since it went idle):
    // start it now, so that it is loaded by the first tool call.
    if (!ownSocket(info.socket)) this.spawnDaemon(bin);
    return { client: new DaemonClient(info.socket, info.handshake), bin };
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
   * decide runs one hook call: through the daemon when it answers, else
   * in-process (prepare, load config and state, handle, apply the
   * effects). It never throws.
   * @returns {Promise<{stdout: string, exitCode: number, effects: object[], error?: string, warnings: string[], via: "daemon" | "in-process"}>}
   */
  async decide(harness, event, payload) {
    // One name for this call on both paths: a hook the daemon took but
    // did not answer in time, decided here after all, is stored once.
    const id = randomUUID();
    const answered = await this.askDaemon(harness, event, payload, id);
    return answered ?? this.decideInProcess(harness, event, payload, id);
  }

  // askDaemon returns the daemon's decision, or null when there is none
  // (and starts a daemon when none is running). It never throws.
  async askDaemon(harness, event, payload, id) {
    try {
      const daemon = await this.daemon;
      if (!daemon || Date.now() < this.downUntil) return null;
      const body = Buffer.isBuffer(payload) ? payload : Buffer.from(String(payload ?? ""));
      if (body.length > WIRE_MAX_FIELD) return null; // the daemon would refuse it
      const waitMs = daemonWait(body.length, hookBudget(this.env));
      // The request's fields after the handshake (hookproto.Request): its
      // name, the deadline the daemon answers by, lateness ("": none
      // here), what the plugin reads of the environment, the payload.
      const fields = [harness, event, id, String(waitMs), "", this.pluginEnviron(harness, event)].map((f) => Buffer.from(f));
      let ans;
      try {
        ans = await daemon.client.ask([...fields, body], waitMs + DAEMON_GRACE_MS);
      } catch (err) {
        if (!err.missing) this.downUntil = Date.now() + DOWN_MS;
        this.spawnDaemon(daemon.bin);
        return null;
      }
      return this.fromAnswer(ans, daemon.bin);
    } catch {
      return null;
    }
  }

  // pluginEnviron is what the daemon is sent of this host's environment,
  // as NUL-separated KEY=VALUE lines, by the Go client's rule
  // (hookproto.PluginEnviron): the variables the plugin reads and the
  // entries that may hold a secret it redacts; all of it for Claude
  // Code's SessionStart.
  pluginEnviron(harness, event) {
    const whole = harness === "claude-code" && event === "SessionStart";
    const lines = [];
    for (const [k, v] of Object.entries(this.env)) {
      if (v === undefined) continue;
      if (whole || PLUGIN_VARS.includes(k) || sensitive(k, String(v))) lines.push(`${k}=${v}`);
    }
    return lines.join("\0");
  }

  // fromAnswer turns the daemon's answer [status, exit code, stdout,
  // stderr, failed] into a decision, or null when it holds none: another
  // build's daemon ("mismatch": it retires, and one of this build is
  // started), or a hook it could not decide (failed).
  fromAnswer(ans, bin) {
    const [status, code, stdout, stderr, failed] = ans.map((f) => f.toString());
    if (status !== "ok" || ans.length < 4) {
      this.spawnDaemon(bin);
      return null;
    }
    if (failed) return null;
    const exitCode = Number.parseInt(code, 10);
    if (!Number.isInteger(exitCode)) return null;
    // The daemon's stderr is "ctxhook: <warning>" lines, the hook's own.
    const warnings = stderr.split("\n").filter(Boolean).map((l) => l.replace(/^ctxhook: /, ""));
    for (const w of warnings) this.log(w);
    return { stdout, exitCode, effects: [], warnings, via: "daemon" };
  }

  // spawnDaemon starts `ctxhook daemon` detached, for the next calls, at
  // most once per SPAWN_EVERY_MS. Of daemons started together all but one
  // exit at once (the daemon's lock).
  spawnDaemon(bin) {
    const now = Date.now();
    if (now - this.spawnedAt < SPAWN_EVERY_MS) return;
    this.spawnedAt = now;
    try {
      const child = spawn(bin, ["daemon"], { detached: true, stdio: "ignore", env: this.env, cwd: "/" });
      child.on("error", () => {}); // a binary that cannot start: the in-process path reports it
      child.unref();
    } catch {
      // as above
    }
  }

  // decideInProcess runs the plugin here and reaches state and the store
  // through `ctxhook io`. It never throws.
  async decideInProcess(harness, event, payload, id) {
    const empty = { stdout: "", exitCode: 0, effects: [], warnings: [], via: "in-process" };
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
        request_id: id,
      };
      if (loaded.state_error) req.state_error = loaded.state_error;
      const resp = await this.plugin.handle(req);
      const warnings = [...(loaded.warnings ?? [])];
      if (loaded.state_error) warnings.push(loaded.state_error);
      if (resp.stderr) warnings.push(resp.stderr);
      if (resp.effects?.length) {
        const env = { ...this.env, CTXHOOK_REQUEST_ID: id };
        try {
          const applied = await ctxhookIO(this.bin, ["apply"], JSON.stringify(resp.effects), env, this.timeoutMs);
          warnings.push(...(applied.warnings ?? []));
        } catch (err) {
          warnings.push(`effects not applied: ${err.message}`);
        }
      }
      for (const w of warnings) this.log(w);
      return { stdout: resp.stdout ?? "", exitCode: resp.exit_code ?? 0, effects: resp.effects ?? [], warnings, via: "in-process" };
    } catch (err) {
      this.log(`${harness} ${event}: ${err.message}; the agent continues without ctxhook`);
      return { ...empty, error: err.message };
    }
  }

  close() {
    this.daemon.then((d) => d?.client.close());
    return this.plugin.close();
  }
}

export { Host, loadPlugin, ABI_VERSION };
