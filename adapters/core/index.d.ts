/** A decision: the exact hook output and the effects already applied. */
export interface Decision {
  stdout: string;
  exitCode: number;
  /** The effects applied in-process; [] when the daemon decided (it applied its own). */
  effects: object[];
  warnings: string[];
  /** Set when ctxhook failed; stdout is then empty (fail-open). */
  error?: string;
  /** Who decided: the ctxhook daemon, or plugin.wasm in this process. */
  via: "daemon" | "in-process";
}

export interface HostOptions {
  wasm?: string;
  ctxhook?: string;
  env?: Record<string, string | undefined>;
  log?: (message: string) => void;
  /** false: never ask the ctxhook daemon (also when CTXHOOK_NO_DAEMON is set). */
  daemon?: boolean;
}

/**
 * Asks the ctxhook daemon first (over its Unix socket); else runs ctxhook's
 * plugin.wasm here, state and events going through `ctxhook io`.
 */
export class Host {
  static load(opts?: HostOptions): Promise<Host>;
  /** Never throws. */
  decide(harness: string, event: string, payload: string): Promise<Decision>;
  close(): void;
}

export const ABI_VERSION: number;

export function loadPlugin(wasmPath?: string): Promise<{
  /** sha256 (hex) of the plugin.wasm bytes loaded. */
  sha256: string;
  callRaw(name: string, input: string): Promise<string>;
  prepare(req: object): Promise<{ state_keys: string[] }>;
  handle(req: object): Promise<{ stdout: string; exit_code: number; stderr?: string; effects: object[] }>;
  close(): void;
}>;
