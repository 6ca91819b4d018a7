// Host.decide on the warm path: the real ctxhook daemon asked over its
// socket, the in-process path (plugin.wasm here, `ctxhook io`) whenever
// the daemon cannot answer. Every test uses a real daemon or none, real
// state files and a real store; only the misbehaving sockets are fakes.
import test from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Host } from "../index.js";
import { bin, cleanup, daemonPids, freshHome, knobBuild, search, searchSoon, socketInfo, socketUp, startDaemon, until } from "../testing/daemons.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

// opencode builds the payload the OpenCode plugin sends for a recorded hook.
function opencode(hook) {
  const { input, output } = JSON.parse(readFileSync(path.join(repo, `testdata/payloads/opencode/1.18.33/hook-${hook}.json`), "utf8"));
  return JSON.stringify({ hook, directory: "/proj", mcp_servers: [], input, output });
}
const before = opencode("tool.execute.before");
const after = opencode("tool.execute.after");

// withHome runs fn with a fresh CTXHOOK_HOME and its environment, then
// ends every daemon serving it and removes it.
async function withHome(fn) {
  const home = freshHome();
  try {
    return await fn(home, { ...process.env, CTXHOOK_HOME: home });
  } finally {
    cleanup(home);
  }
}

async function load(env, opts = {}) {
  const logs = [];
  const host = await Host.load({ ctxhook: bin, env, log: (m) => logs.push(m), ...opts });
  return { host, logs };
}

test("a running daemon decides: relay and nudge as in-process, the event found by ctxhook search", () => withHome(async (home, env) => {
  await startDaemon(env);
  const { host, logs } = await load(env);
  try {
    const first = await host.decide("opencode", "tool.execute.before", before);
    assert.equal(first.via, "daemon", first.error);
    assert.equal(first.stdout, "");
    const d = await host.decide("opencode", "tool.execute.after", after);
    assert.equal(d.via, "daemon");
    assert.equal(d.exitCode, 0);
    assert.deepEqual(d.effects, []);
    assert.match(JSON.parse(d.stdout).append_text, /ctxhook search/);
    // The token the daemon captured from _meta is injected into the next call.
    const next = await host.decide("opencode", "tool.execute.before", before);
    assert.equal(next.via, "daemon");
    assert.deepEqual(JSON.parse(next.stdout).args, { id: "TCK-42", session_token: "srv-tok-TCK-42" });
    const hits = await searchSoon(env, "Printer on floor 3");
    assert.equal(hits.length, 1, JSON.stringify(hits));
    assert.equal(hits[0].tool, "tickets_get_ticket");
    // Parallel tool calls: each on a connection of its own, all answered.
    const many = await Promise.all(Array.from({ length: 8 }, () => host.decide("opencode", "tool.execute.before", before)));
    for (const m of many) assert.equal(m.via, "daemon");
    assert.deepEqual(logs, []);
  } finally {
    host.close();
  }
}));

test("a daemon restarted between calls: the next call reaches the new one", () => withHome(async (home, env) => {
  const first = await startDaemon(env);
  const { host } = await load(env);
  try {
    assert.equal((await host.decide("opencode", "tool.execute.before", before)).via, "daemon");
    first.kill("SIGKILL");
    await until(() => first.exitCode !== null || first.signalCode !== null, 5000);
    rmSync(socketInfo(env).socket, { force: true }); // the dead daemon's socket file
    await startDaemon(env);
    // The kept connection is the dead daemon's: closed, and replaced.
    assert.equal((await host.decide("opencode", "tool.execute.before", before)).via, "daemon");
  } finally {
    host.close();
  }
}));

test("no daemon: loading the host starts one; calls before it is up are decided in-process, the later ones by it", () => withHome(async (home, env) => {
  const { host, logs } = await load(env);
  try {
    await host.daemon; // io socket answered: the daemon is being started
    assert.ok(await until(() => daemonPids(home).length > 0, 10000), "loading the host started no daemon");
    const d = await host.decide("opencode", "tool.execute.after", after);
    assert.match(JSON.parse(d.stdout).append_text, /ctxhook search/);
    if (d.via === "in-process") {
      assert.equal(d.effects.length > 0, true, "the in-process path reports its effects");
      // Stored by `ctxhook io apply` before decide returned.
      assert.equal(search(env, "Printer on floor 3").length, 1);
    } else {
      assert.ok(await until(() => search(env, "Printer on floor 3").length === 1, 10000), "the daemon did not store the event");
    }
    assert.ok(await until(() => socketUp(socketInfo(env).socket), 60000), "no daemon started");
    const later = await until(async () => {
      const n = await host.decide("opencode", "tool.execute.before", before);
      return n.via === "daemon" ? n : null;
    }, 10000, 100);
    assert.ok(later, "the started daemon never answered");
    assert.deepEqual(JSON.parse(later.stdout).args, { id: "TCK-42", session_token: "srv-tok-TCK-42" });
    assert.equal(daemonPids(home).length, 1);
    assert.deepEqual(logs, []);
  } finally {
    host.close();
  }
}));

test("a daemon of another build answers mismatch: decided in-process, and that daemon retires", () => withHome(async (home, env) => {
  // A release build ignores the knob that names another build: the
  // daemon comes from the test-knob build.
  const other = await startDaemon(env, { CTXHOOK_DAEMON_TEST_BUILD_ID: "another-build" }, knobBuild());
  const { host, logs } = await load(env);
  try {
    const d = await host.decide("opencode", "tool.execute.after", after);
    assert.equal(d.via, "in-process");
    assert.equal(d.error, undefined);
    assert.match(JSON.parse(d.stdout).append_text, /ctxhook search/);
    assert.ok(await until(() => other.exitCode !== null, 15000), "the other build's daemon did not retire");
    assert.deepEqual(logs, []);
  } finally {
    host.close();
  }
}));

// fakeDaemon listens on the daemon's socket for env and answers every
// request with answer(conn): a daemon that misbehaves on the wire.
// server.requests counts the requests it got.
async function fakeDaemon(env, answer) {
  const { socket } = socketInfo(env);
  mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
  const server = net.createServer((conn) => conn.once("data", () => {
    server.requests++;
    answer(conn);
  }));
  server.requests = 0;
  await new Promise((resolve) => server.listen(socket, resolve));
  return server;
}

function uint32(n) {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

const misbehaviours = {
  "closes mid-answer": (conn) => {
    conn.write(Buffer.concat([uint32(5), uint32(2), Buffer.from("ok"), uint32(1), Buffer.from("0"), uint32(50), Buffer.from("{\"ar")]));
    conn.destroy();
  },
  "answers a malformed frame": (conn) => conn.write(uint32(1 << 20)),
  "closes without a word": (conn) => conn.destroy(),
  "never answers": () => {},
};

for (const [name, answer] of Object.entries(misbehaviours)) {
  test(`a daemon socket that ${name}: decide does not throw and decides in-process`, () => withHome(async (home, env) => {
    env.CTXHOOK_HOOK_DEADLINE_MS = "300"; // the wait for a silent daemon
    const server = await fakeDaemon(env, answer);
    const { host } = await load(env);
    try {
      const started = Date.now();
      const d = await host.decide("opencode", "tool.execute.after", after);
      assert.equal(d.via, "in-process");
      assert.equal(d.error, undefined);
      assert.match(JSON.parse(d.stdout).append_text, /ctxhook search/);
      assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
      assert.equal(server.requests, 1);
    } finally {
      host.close();
      server.close();
    }
  }));
}

test("daemon: false and CTXHOOK_NO_DAEMON decide in-process with a daemon running", () => withHome(async (home, env) => {
  await startDaemon(env);
  for (const [opts, e] of [[{ daemon: false }, env], [{}, { ...env, CTXHOOK_NO_DAEMON: "1" }]]) {
    const { host } = await load(e, opts);
    try {
      assert.equal((await host.decide("opencode", "tool.execute.before", before)).via, "in-process");
    } finally {
      host.close();
    }
  }
}));

test("a plugin.wasm other than the binary's is never sent to its daemon: in-process, said once", () => withHome(async (home, env) => {
  await startDaemon(env);
  // The same module with a custom section appended: valid, other bytes.
  const wasm = path.join(home, "plugin.wasm");
  const custom = Buffer.from([0, 5, 4, ...Buffer.from("test")]);
  writeFileSync(wasm, Buffer.concat([readFileSync(path.join(repo, "plugin/plugin.wasm")), custom]));
  const { host, logs } = await load(env, { wasm });
  try {
    for (let i = 0; i < 2; i++) assert.equal((await host.decide("opencode", "tool.execute.before", before)).via, "in-process");
    assert.equal(logs.length, 1, logs.join("\n"));
    assert.match(logs[0], /not the one/);
  } finally {
    host.close();
  }
}));
