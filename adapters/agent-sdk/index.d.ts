/** Options for ctxhookHooks. */
export interface CtxhookHooksOptions {
  /** Path of plugin.wasm (default: the one shipped with @ctxhook/core; no environment variable changes it). */
  wasm?: string;
  /** The ctxhook binary that owns state and the store (default: CTXHOOK_BIN, else "ctxhook" on PATH). */
  ctxhook?: string;
  /** Environment for ctxhook (default: process.env). */
  env?: Record<string, string | undefined>;
  /** Where one-line warnings go (default: stderr). */
  log?: (message: string) => void;
  /** false: never ask the ctxhook daemon, decide in-process (also when CTXHOOK_NO_DAEMON is set). */
  daemon?: boolean;
  /** Seconds the SDK gives each callback (default 30). */
  timeout?: number;
  /** Hooks of your own; ctxhook's matchers are appended to them. */
  merge?: Record<string, unknown[]>;
}

/** Options.hooks for the Claude Agent SDK's query(): decided by the ctxhook daemon, else in-process. */
export function ctxhookHooks(opts?: CtxhookHooksOptions): Record<string, Array<{
  matcher?: string;
  hooks: Array<(input: unknown, toolUseID: string | undefined, options: { signal: AbortSignal }) => Promise<Record<string, unknown>>>;
  timeout?: number;
}>>;
