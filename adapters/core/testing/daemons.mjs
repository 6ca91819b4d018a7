// Helpers for the adapters' tests that run the real ctxhook daemon: a
// fresh CTXHOOK_HOME short enough for a Unix socket path, a daemon
// started and awaited, and every daemon of a home ended afterwards
// (including the ones a Host started itself). Linux only (/proc).
import { execFileSync, spawn } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** The ctxhook binary under test: CTXHOOK_BIN (make js sets it), else bin/ctxhook. */
export const bin = process.env.CTXHOOK_BIN ?? path.join(repo, "bin/ctxhook");

/**
 * knobBin is ctxhook built with the test knobs (make js builds it with
 * -tags ctxhook_testhooks): CTXHOOK_KNOB_BIN, else bin/knobs/ctxhook.
 * Release builds ignore the knobs, so the tests that need one (a daemon
 * of another build) start this binary. knobBuild() checks it is one.
 */
export const knobBin = process.env.CTXHOOK_KNOB_BIN ?? path.join(repo, "bin/knobs/ctxhook");

/** knobBuild throws unless knobBin is a build that reads the test knobs. */
export function knobBuild() {
  let out = "";
  try {
    out = execFileSync(knobBin, ["--version"]).toString();
  } catch (e) {
    throw new Error(`no test-knob build at ${knobBin} (make js builds one): ${e.message}`);
  }
  if (!out.includes("TEST-KNOB BUILD")) throw new Error(`${knobBin} is a release build: it ignores the test knobs (make js builds one with -tags ctxhook_testhooks)`);
  return knobBin;
}

/**
 * freshHome makes a CTXHOOK_HOME with a config relaying the "tickets"
 * server. It is short (os.tmpdir() and a short prefix): the daemon's
 * socket path must fit in a sockaddr_un (108 bytes).
 */
export function freshHome(prefix = "cxh-") {
  const home = mkdtempSync(path.join(tmpdir(), prefix));
  mkdirSync(path.join(home, "config"), { recursive: true });
  writeFileSync(path.join(home, "config/config.toml"), "[servers.tickets]\nrelay = true\n");
  return home;
}

/** socketInfo is what `ctxhook io socket` says for env. */
export function socketInfo(env) {
  return JSON.parse(execFileSync(bin, ["io", "socket"], { env }).toString());
}

/** until polls fn until it returns a truthy value, for at most ms; it returns that value, or undefined. */
export async function until(fn, ms = 20000, every = 20) {
  for (const end = Date.now() + ms; ; await new Promise((r) => setTimeout(r, every))) {
    const v = await fn();
    if (v || Date.now() > end) return v;
  }
}

/** socketUp reports whether a socket file exists at path. */
export function socketUp(path) {
  try {
    return lstatSync(path).isSocket();
  } catch {
    return false;
  }
}

/**
 * startDaemon runs `ctxhook daemon` for env (extra variables on top) and
 * resolves once its socket exists; the child process is returned. daemon
 * is the binary to run (knobBuild() for one that reads the test knobs).
 */
export async function startDaemon(env, extra = {}, daemon = bin) {
  const { socket } = socketInfo(env);
  const child = spawn(daemon, ["daemon"], { env: { ...env, ...extra }, stdio: "ignore" });
  const up = await until(() => socketUp(socket), 60000);
  if (!up) {
    child.kill("SIGKILL");
    throw new Error(`no daemon socket at ${socket} a minute after start`);
  }
  return child;
}

/**
 * daemonPids lists the ctxhook daemons serving home: the processes whose
 * environment sets CTXHOOK_HOME=home and whose command is `... daemon`.
 */
export function daemonPids(home) {
  const pids = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, "latin1");
      if (!environ.includes(`CTXHOOK_HOME=${home}\0`)) continue;
      const argv = readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0");
      if (argv[1] === "daemon") pids.push(pid);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return pids;
}

/** cleanup SIGKILLs every daemon serving home and removes home; it returns how many daemons it ended. */
export function cleanup(home) {
  const pids = daemonPids(home);
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  rmSync(home, { recursive: true, force: true });
  return pids.length;
}

/** search runs `ctxhook search --json query` and returns its hits. */
export function search(env, query) {
  try {
    return JSON.parse(execFileSync(bin, ["search", "--json", query], { env, stdio: ["ignore", "pipe", "ignore"] }).toString()).results;
  } catch {
    return []; // no store yet
  }
}

/**
 * searchSoon waits for query to be found: the daemon answers before its
 * writer has put the events it spooled into the store.
 */
export function searchSoon(env, query, ms = 10000) {
  return until(() => {
    const hits = search(env, query);
    return hits.length ? hits : null;
  }, ms, 50).then((hits) => hits ?? []);
}
