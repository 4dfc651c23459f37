import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { api, Code, formatMessage, type Language, type MessageKey } from '@ksp/contracts';
import {
  isStorageUnavailable,
  STORAGE_RETRY_AFTER_SECONDS,
  type StorageHealth,
} from '../db/storage-health.js';
import { KspError, UnauthorizedError, UnavailableError } from '../errors.js';
import { requestLanguage } from './language.js';
import { describeIssues, type ValidationIssue } from './validation-message.js';

function languageOf(req: FastifyRequest): Language {
  return req.ksp?.meta.lang ?? requestLanguage(req);
}

/**
 * Multipart framing the caller got wrong (busboy and @fastify/multipart report these as plain
 * errors, some with a 5xx status): the rule broken, for a code-4000 answer.
 */
function multipartRule(error: FastifyError): MessageKey | null {
  const message = typeof error.message === 'string' ? error.message : '';
  if (/^(Multipart: )?Boundary not found/i.test(message)) return 'error.multipartRule.boundary';
  // The parser reports a body cut short on itself ("Unexpected end of multipart data") and, when
  // a part was already handed to the route, on that part's stream ("Part terminated early due to
  // unexpected end of multipart data"), which reaches us from whatever read the upload.
  if (
    /^Unexpected end of (form|multipart data)|^Malformed part header|^Unexpected end of file/i.test(
      message,
    ) ||
    /^(Part|Preamble) terminated early\b/i.test(message)
  )
    return 'error.multipartRule.truncated';
  if (error.code === 'FST_MP_PREMATURE_CLOSE') return 'error.multipartRule.truncated';
  if (
    error.code === 'FST_PARTS_LIMIT' ||
    error.code === 'FST_FILES_LIMIT' ||
    error.code === 'FST_FIELDS_LIMIT' ||
    error.code === 'FST_PROTO_VIOLATION' ||
    error.code === 'FST_INVALID_JSON_FIELD_ERROR'
  )
    return 'error.multipartRule.limits';
  return null;
}

/** The one place errors become envelopes. 5xx bodies stay generic and carry an error id. */
export function installErrorHandler(app: FastifyInstance, storage: StorageHealth): void {
  app.addHook('onResponse', (req, reply, done) => {
    // Only an API call that reached the database proves it is back: not the liveness check, the
    // console's files or the documentation, which answer 200 without it.
    const url = req.routeOptions.url ?? '';
    if (
      storage.unavailable &&
      reply.statusCode === 200 &&
      url.startsWith('/v1/') &&
      url !== api.system.live.path
    )
      storage.succeeded();
    done();
  });
  app.setErrorHandler((raw: unknown, req: FastifyRequest, reply: FastifyReply) => {
    const lang = languageOf(req);
    // Error envelopes carry `data: null`, which the route's success schema would reject.
    reply.serializer((payload: unknown) => JSON.stringify(payload));
    if (isStorageUnavailable(raw)) {
      // One log line per outage (in `storage`), not a stack trace per request.
      storage.failed(raw);
      return reply
        .status(503)
        .header('retry-after', String(STORAGE_RETRY_AFTER_SECONDS))
        .send({
          code: Code.STORAGE_UNAVAILABLE,
          msg: formatMessage('error.storageUnavailable', lang, { seconds: STORAGE_RETRY_AFTER_SECONDS }),
          data: null,
        });
    }
    if (raw instanceof UnavailableError) {
      return reply
        .status(503)
        .header('retry-after', String(STORAGE_RETRY_AFTER_SECONDS))
        .send({ code: raw.code, msg: formatMessage(raw.messageKey, lang, raw.params), data: null });
    }
    if (raw instanceof KspError) {
      return reply
        .status(200)
        .send({ code: raw.code, msg: formatMessage(raw.messageKey, lang, raw.params), data: null });
    }
    if (raw instanceof UnauthorizedError) {
      return reply.status(401).send({ code: 401, msg: formatMessage(raw.messageKey, lang), data: null });
    }
    const error = raw as FastifyError;
    if (Array.isArray(error.validation)) {
      const msg = describeIssues(
        error.validation as unknown as ValidationIssue[],
        error.validationContext ?? 'body',
        lang,
      );
      return reply.status(200).send({ code: Code.INVALID, msg, data: null });
    }
    const rule = multipartRule(error);
    if (rule) {
      return reply.status(200).send({
        code: Code.INVALID,
        msg: formatMessage('error.multipartInvalid', lang, { rule: formatMessage(rule, lang) }),
        data: null,
      });
    }
    const status = error.statusCode ?? 500;
    if (
      error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ||
      error.code === 'FST_REQ_FILE_TOO_LARGE' ||
      status === 413
    ) {
      return reply
        .status(413)
        .send({ code: 413, msg: formatMessage('error.bodyTooLarge', lang), data: null });
    }
    if (status === 429) {
      return reply.status(429).send({ code: 429, msg: formatMessage('error.rateLimited', lang), data: null });
    }
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || status === 415) {
      return reply
        .status(415)
        .send({ code: 415, msg: formatMessage('error.unsupportedMedia', lang), data: null });
    }
    if (status === 400) {
      // Malformed JSON, empty JSON body, bad multipart framing: the caller's input, not our fault.
      return reply
        .status(200)
        .send({ code: Code.INVALID, msg: formatMessage('error.badJson', lang), data: null });
    }
    const errorId = randomUUID();
    req.log.error({ err: error, errorId }, 'unexpected error');
    return reply
      .status(500)
      .send({ code: Code.INTERNAL, msg: formatMessage('error.internal', lang, { errorId }), data: null });
  });
}
