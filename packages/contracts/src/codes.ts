/**
 * Response codes of the envelope `{ code, msg, data }` (see docs/api.md#codes-every-call-can-answer).
 * `code` 0 is success; every other code is a business outcome the caller can act on.
 */
export const Code = {
  OK: 0,
  INVALID: 4000,
  BAD_CREDENTIALS: 4001,
  ACCOUNT_LOCKED: 4002,
  PASSWORD_CHANGE_REQUIRED: 4003,
  IP_NOT_ALLOWED: 4004,
  FORBIDDEN: 4030,
  NOT_FOUND: 4040,
  CONFLICT: 4090,
  STATE_FORBIDS: 4220,
  UKEY_REQUIRED: 4503,
  SESSION_EXPIRED: 4604,
  NOT_INITIALIZED: 5030,
  /** HTTP 503 with Retry-After: the database cannot be reached; the same call may succeed later. */
  STORAGE_UNAVAILABLE: 5031,
  INTERNAL: 5000,
} as const;

export type CodeValue = (typeof Code)[keyof typeof Code];
