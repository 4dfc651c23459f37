/** One unhandled UI error, kept in memory in production (docs/console.md#errors). */
export interface ErrorLogEntry {
  err: unknown;
  info: string;
  url: string;
}

const entries: ErrorLogEntry[] = [];
let enabled = false;

export function isErrorLogEnabled(): boolean {
  return enabled;
}

/** Adds an entry and prints it; does nothing unless the log is installed (production only). */
export function recordError(err: unknown, info: string, url: string = window.location.href): void {
  if (!enabled) return;
  const entry: ErrorLogEntry = { err, info, url };
  entries.push(entry);
  console.error('[error-log]', entry);
}

export function getErrorLog(): readonly ErrorLogEntry[] {
  return entries;
}

export function clearErrorLog(): void {
  entries.length = 0;
}

/**
 * Turns the log on and listens to the window's error events when `active` (the app
 * passes `import.meta.env.PROD`). Returns the function that undoes it.
 */
export function installErrorLog(active: boolean, target: Window = window): () => void {
  if (!active) return () => undefined;
  enabled = true;
  const onError = (event: ErrorEvent) => recordError(event.error ?? event.message, 'window.onerror');
  const onRejection = (event: PromiseRejectionEvent) => recordError(event.reason, 'unhandledrejection');
  target.addEventListener('error', onError);
  target.addEventListener('unhandledrejection', onRejection);
  return () => {
    enabled = false;
    target.removeEventListener('error', onError);
    target.removeEventListener('unhandledrejection', onRejection);
  };
}

/** createRoot options feeding React's own error reports into the log. */
export const reactErrorLogOptions = {
  onUncaughtError: (error: unknown, info: { componentStack?: string | undefined }) =>
    recordError(error, info.componentStack ?? 'uncaught'),
  onRecoverableError: (error: unknown, info: { componentStack?: string | undefined }) =>
    recordError(error, info.componentStack ?? 'recoverable'),
};
