/** What the agent reads from and sends to KSP (the calls of contracts/calls/client.ts and client-log.ts). */
export interface Envelope<T> {
  code: number;
  msg: string;
  data: T;
}

/** The first line of what an agent signs (contracts `CLIENT_SIGNATURE_CONTEXT`). */
export const CLIENT_SIGNATURE_CONTEXT_LINE = 'ksp-client-v1';

/**
 * What the server answers (4001, in English) to a signed call of a client it does not know: one
 * deleted at once in the console (force delete). The daemon stops on it.
 */
export const UNKNOWN_CLIENT_MESSAGE = 'Agent authentication failed: unknown client';

/** The `aud` of a log upload's token (contracts `CLIENT_LOG_AUDIENCE`). */
export const LOG_UPLOAD_AUDIENCE = 'ksp:log/client/upload';

export const PATHS = {
  enrol: '/v1/ksp/client/enrol',
  heartbeat: '/v1/ksp/client/heartbeat',
  config: '/v1/ksp/client/config',
  logUpload: '/v1/ksp/log/client/upload',
};

/** One client log record (contracts `ClientLogInput`). */
export interface LogRecord {
  level: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'FATAL';
  at: string;
  action: string;
  effect: 'permit' | 'deny' | 'audit';
  policy?: string;
  guard_point?: string;
  os_user?: string;
  process?: string;
  resource?: string;
  details?: Record<string, unknown>;
}
