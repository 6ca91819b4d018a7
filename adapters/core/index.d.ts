/** A decision: the exact hook output and the effects already applied. */
export interface Decision {
  stdout: string;
  exitCode: number;
  effects: object[];
  warnings: string[];
  /** Set when ctxhook failed; stdout is then empty (fail-open). */
  error?: string;
}

export interface HostOptions {
  wasm?: string;
  ctxhook?: string;
  env?: Record<string, string | undefined>;
  log?: (message: string) => void;
}

/** Runs ctxhook's plugin.wasm; state and events go through `ctxhook io`. */
export class Host {
  static load(opts?: HostOptions): Promise<Host>;
  /** Never throws. */
  decide(harness: string, event: string, payload: string): Promise<Decision>;
  close(): void;
}

export const ABI_VERSION: number;

export function loadPlugin(wasmPath?: string): Promise<{
  callRaw(name: string, input: string): Promise<string>;
  prepare(req: object): Promise<{ state_keys: string[] }>;
  handle(req: object): Promise<{ stdout: string; exit_code: number; stderr?: string; effects: object[] }>;
  close(): void;
}>;
