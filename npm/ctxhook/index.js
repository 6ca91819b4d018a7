// ctxhook's npm package: the Go binaries come in one optional dependency
// per platform (@ctxhook/<platform>-<arch>), of which npm installs only
// the one for this machine. binaryPath says where its binary is, for the
// bin/ scripts and for the JS adapters (@ctxhook/core looks here).
//
// The platform package is looked for only inside the installation that
// holds this package, never with require.resolve: that walks up every
// ancestor's node_modules, and a project under /tmp would then run a
// binary any local user planted in /tmp/node_modules.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const exe = process.platform === "win32" ? ".exe" : "";

/** The platform package for this machine, as npm names it. */
function platformPackage() {
  return `@ctxhook/${process.platform}-${process.arch}`;
}

/**
 * installedPackage returns the real directory of package `name` as npm
 * installed it for the package at `from`, or null. npm puts a dependency
 * in the dependent's own node_modules, or hoists it into a node_modules
 * above, up to the installation's top one: a project's node_modules, a
 * global prefix's lib/node_modules, an npx cache directory's
 * node_modules. The top one is the outermost node_modules on `from`'s
 * real path; nothing above it is looked at, and a candidate whose real
 * path leaves it (a link out) or that another account owns is refused.
 */
function installedPackage(name, from) {
  const real = fs.realpathSync(from);
  let top = null;
  for (let d = real; d !== path.dirname(d); d = path.dirname(d)) {
    if (path.basename(d) === "node_modules") top = d;
  }
  // Not inside any node_modules (a checkout, a linked package): its own only.
  const root = top ? path.dirname(top) : real;
  const within = top ?? path.join(real, "node_modules");
  const owner = fs.statSync(real).uid;
  for (let dir = real; ; dir = path.dirname(dir)) {
    if (path.basename(dir) !== "node_modules") {
      const found = candidate(path.join(dir, "node_modules", ...name.split("/")), name, within, owner);
      if (found) return found;
    }
    if (dir === root || dir === path.dirname(dir)) return null;
  }
}

// candidate: dir's real path when it holds package name inside `within`,
// owned by the account that owns the dependent; else null.
function candidate(dir, name, within, owner) {
  let real;
  try {
    real = fs.realpathSync(dir);
    const pkg = JSON.parse(fs.readFileSync(path.join(real, "package.json"), "utf8"));
    if (pkg.name !== name || fs.statSync(real).uid !== owner) return null;
  } catch {
    return null;
  }
  return real.startsWith(within + path.sep) ? real : null;
}

/**
 * binaryPath returns the path of ctxhook (or "ctxhook-hook") from this
 * machine's platform package, or throws saying how to get it.
 */
function binaryPath(name = "ctxhook") {
  const pkg = platformPackage();
  const dir = installedPackage(pkg, __dirname);
  if (dir) {
    const bin = path.join(dir, "bin", name + exe);
    try {
      if (fs.statSync(bin).uid === fs.statSync(dir).uid) return bin;
    } catch {}
  }
  throw new Error(missing(pkg));
}

// missing says why there is no binary and what to run.
function missing(pkg) {
  const own = require("./package.json");
  const plat = `${process.platform}-${process.arch}`;
  if (!Object.hasOwn(own.optionalDependencies ?? {}, pkg)) {
    return `ctxhook: no npm build for ${plat}; use a release archive or build from source (go build ./host/cmd/...)`;
  }
  return (
    `ctxhook: no binary for ${plat}: the platform package ${pkg} is not installed beside ctxhook in ` +
    `${fs.realpathSync(__dirname)}. npm leaves it out with --omit=optional (or --no-optional) or when its ` +
    `install failed: reinstall ctxhook without that flag, or install ${pkg}@${own.version} next to it`
  );
}

module.exports = { binaryPath, platformPackage, installedPackage };
