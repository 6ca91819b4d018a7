// CTXHOOK_BIN names the ctxhook binary the adapters run for `ctxhook io`
// and the daemon: it gets every payload whole and decides what is stored.
// Host.load runs it only when it is this user's and no one else may write
// it or its directory; otherwise one log line, and the binary it would
// have used without the variable. Real files, real modes; as root, files
// given to nobody (uid 65534) are another user's.
import test from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Host } from "../index.js";
import { cleanup, freshHome } from "../testing/daemons.mjs";

const asRoot = typeof process.geteuid === "function" && process.geteuid() === 0;

const cases = [
  { name: "own 0700 in an own 0700 directory", dirMode: 0o700, mode: 0o700, used: true },
  { name: "world-writable file", dirMode: 0o700, mode: 0o777, used: false },
  { name: "group-writable file", dirMode: 0o700, mode: 0o770, used: false },
  { name: "world-writable directory", dirMode: 0o777, mode: 0o700, used: false },
  { name: "another user's file", dirMode: 0o700, mode: 0o755, owner: 65534, used: false, skip: !asRoot },
  { name: "a link of its own to a world-writable file", dirMode: 0o700, mode: 0o777, link: true, used: false },
];

for (const c of cases) {
  test(`CTXHOOK_BIN: ${c.name}`, { skip: process.platform === "win32" || (c.skip && "needs root to give a file away") }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ctxhook-binenv-"));
    const home = freshHome();
    try {
      const marker = path.join(dir, "ran");
      let planted = path.join(dir, "evil");
      fs.writeFileSync(planted, `#!/bin/sh\necho ran > ${marker}\nexit 1\n`);
      fs.chmodSync(planted, c.mode);
      if (c.owner !== undefined) fs.chownSync(planted, c.owner, c.owner);
      if (c.link) {
        fs.symlinkSync(planted, path.join(dir, "link"));
        planted = path.join(dir, "link");
      }
      fs.chmodSync(dir, c.dirMode);
      const logs = [];
      const env = { ...process.env, CTXHOOK_HOME: home, CTXHOOK_NO_DAEMON: "1", CTXHOOK_BIN: planted };
      const host = await Host.load({ env, log: (m) => logs.push(m) });
      try {
        assert.equal(host.bin === planted, c.used, `host.bin = ${host.bin}`);
        assert.equal(logs.filter((m) => m.includes("ignoring CTXHOOK_BIN")).length, c.used ? 0 : 1, logs.join("\n"));
        await host.decide("opencode", "tool.execute.after", JSON.stringify({ hook: "tool.execute.after", directory: "/proj", mcp_servers: [], input: { tool: "bash", sessionID: "s", callID: "c" }, output: { title: "", output: "hello", metadata: {} } }));
        assert.equal(fs.existsSync(marker), c.used, "whether the named binary ran");
      } finally {
        host.close();
      }
    } finally {
      fs.chmodSync(dir, 0o700);
      fs.rmSync(dir, { recursive: true, force: true });
      cleanup(home);
    }
  });
}
