import { Code, type CodeValue, type MessageKey, type MessageParams } from '@ksp/contracts';

/** A business outcome for the caller: mapped to the envelope by the one error handler. */
export class KspError extends Error {
  constructor(
    readonly code: CodeValue,
    readonly messageKey: MessageKey,
    readonly params: MessageParams = {},
  ) {
    super(messageKey);
    this.name = 'KspError';
  }
}

export const invalid = (key: MessageKey, params?: MessageParams) => new KspError(Code.INVALID, key, params);
export const notFound = (key: MessageKey, params?: MessageParams) =>
  new KspError(Code.NOT_FOUND, key, params);
export const conflict = (key: MessageKey, params?: MessageParams) => new KspError(Code.CONFLICT, key, params);
export const stateForbids = (key: MessageKey, params?: MessageParams) =>
  new KspError(Code.STATE_FORBIDS, key, params);
export const forbidden = (key: MessageKey, params?: MessageParams) =>
  new KspError(Code.FORBIDDEN, key, params);

/**
 * A node that cannot serve now (not ready, or its database not writable): answered with HTTP 503
 * and Retry-After, so a load balancer's check and a client's retry both see it.
 */
export class UnavailableError extends KspError {
  constructor(code: CodeValue, messageKey: MessageKey, params: MessageParams = {}) {
    super(code, messageKey, params);
    this.name = 'UnavailableError';
  }
}

/** HTTP 401: no usable token on a protected path (the console clears it and reloads). */
export class UnauthorizedError extends Error {
  constructor(readonly messageKey: MessageKey) {
    super(messageKey);
    this.name = 'UnauthorizedError';
  }
}
