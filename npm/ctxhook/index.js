// ctxhook's npm package: the Go binaries come in one optional dependency
// per platform (@ctxhook/<platform>-<arch>), of which npm installs only
// the one for this machine. binaryPath says where its binary is, for the
// bin/ scripts and for the JS adapters (@ctxhook/core looks here).
"use strict";
const path = require("node:path");

const exe = process.platform === "win32" ? ".exe" : "";

/** The platform package for this machine, as npm names it. */
function platformPackage() {
  return `@ctxhook/${process.platform}-${process.arch}`;
}

/**
 * binaryPath returns the path of ctxhook (or "ctxhook-hook") from this
 * machine's platform package, or throws saying what to install.
 */
function binaryPath(name = "ctxhook") {
  const pkg = platformPackage();
  let dir;
  try {
    dir = path.dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    throw new Error(
      `ctxhook: no binary for ${process.platform}-${process.arch}: the optional package ${pkg} is not installed ` +
        `(reinstall without --no-optional, or use a release archive)`,
    );
  }
  return path.join(dir, "bin", name + exe);
}

module.exports = { binaryPath, platformPackage };
