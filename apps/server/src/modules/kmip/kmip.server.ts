import { Code, formatMessage } from '@ksp/contracts';
import type { FastifyBaseLogger } from 'fastify';
import { KspError } from '../../platform/errors.js';
import type { Actor, Gatekeeper, RequestMeta } from '../../platform/http/route.js';
import type { ModuleServices } from '../../platform/module.js';
import {
  claimedVersion,
  failure,
  isSupported,
  KmipError,
  readRequest,
  responseMessage,
  type ProtocolVersion,
  type RequestItem,
  type ResponseItem,
} from './kmip.message.js';
import { OPERATION, TAG } from './kmip.tags.js';
import { handlerOf, type OperationContext } from './kmip.operations.js';
import { decodeTtlv, encodeTtlv, TtlvError, type TtlvLimits } from './kmip.ttlv.js';

/** Operations that only use a key (no change of any object): items of a run of them go together. */
const TOGETHER = new Set<number>([
  OPERATION.Encrypt,
  OPERATION.Decrypt,
  OPERATION.Sign,
  OPERATION.SignatureVerify,
  OPERATION.Mac,
  OPERATION.MacVerify,
  OPERATION.RngRetrieve,
]);

/** The batch cut into runs: consecutive cryptographic items naming their key, or single items. */
function runsOf(items: RequestItem[]): RequestItem[][] {
  const together = (item: RequestItem) =>
    TOGETHER.has(item.operation) &&
    (item.operation === OPERATION.RngRetrieve ||
      item.payload.value.some((field) => field.tag === TAG.UniqueIdentifier));
  const runs: { together: boolean; items: RequestItem[] }[] = [];
  for (const item of items) {
    const last = runs.at(-1);
    if (last?.together && together(item)) last.items.push(item);
    else runs.push({ together: together(item), items: [item] });
  }
  return runs.map((run) => run.items);
}

/** The version an answer is written in when the request's cannot be read or is not spoken. */
const FALLBACK: ProtocolVersion = { major: 1, minor: 0 };

/** The KMIP Result Reason of a KSP refusal (docs/kmip.md#errors). */
export function reasonOf(err: KspError): KmipError['reason'] {
  switch (err.code) {
    case Code.FORBIDDEN:
      return 'PermissionDenied';
    case Code.NOT_FOUND:
      return 'ItemNotFound';
    case Code.STATE_FORBIDS:
      return err.messageKey === 'crypto.wrongKeyType' ? 'IllegalOperation' : 'IllegalOperation';
    case Code.INVALID:
      return err.messageKey === 'crypto.decryptFailed' || err.messageKey === 'crypto.failed'
        ? 'CryptographicFailure'
        : 'InvalidField';
    case Code.CONFLICT:
      return 'IllegalOperation';
    default:
      return 'GeneralFailure';
  }
}

export interface KmipCaller {
  actor: Actor;
  meta: RequestMeta;
}

/**
 * Answers one KMIP request message (docs/kmip.md): decodes it within the limits, reads the
 * header, runs each batch item through its operation (each asks the one access check of its
 * REST twin), and encodes the response in the request's version. A message that cannot be read
 * is answered with one failed item (Invalid Message); nothing is written for it.
 */
export function createKmipProcessor(deps: {
  gate: Gatekeeper;
  keys: () => ModuleServices['keys'];
  crypto: () => ModuleServices['crypto'];
  certs: () => ModuleServices['certs'];
  credentials: () => ModuleServices['credentials'];
  limits: TtlvLimits;
  log: FastifyBaseLogger;
  now: () => Date;
  /** Keys used, for their "KMIP total" (kmip.tally.ts). */
  touched: (ids: Iterable<string>) => void;
}) {
  function answer(version: ProtocolVersion, items: ResponseItem[]): Buffer {
    return encodeTtlv(responseMessage(version, deps.now(), items));
  }

  /** A whole message refused: one failed item, in the version the client seemed to speak. */
  function refuseMessage(version: ProtocolVersion | null, err: KmipError): Buffer {
    const v = version && isSupported(version) ? version : FALLBACK;
    return answer(v, [failure(null, null, err)]);
  }

  async function runItem(
    ctx: OperationContext,
    operation: number,
    id: Buffer | null,
    payload: Parameters<NonNullable<ReturnType<typeof handlerOf>>>[1],
  ): Promise<ResponseItem> {
    const handler = handlerOf(operation, ctx.version);
    if (!handler)
      return failure(
        operation,
        id,
        new KmipError(
          'OperationNotSupported',
          `operation ${operation} is not offered in KMIP ${ctx.version.major}.${ctx.version.minor}`,
        ),
      );
    try {
      const out = await handler(ctx, payload);
      return { operation, id, status: 'Success', payload: out };
    } catch (err) {
      if (err instanceof KmipError) return failure(operation, id, err);
      if (err instanceof KspError)
        return failure(
          operation,
          id,
          new KmipError(reasonOf(err), formatMessage(err.messageKey, 'en', err.params)),
        );
      const errorId = crypto.randomUUID();
      deps.log.error({ err, errorId, operation }, 'kmip: unexpected error');
      return failure(operation, id, new KmipError('GeneralFailure', `internal error ${errorId}`));
    }
  }

  return {
    /** The response to one message from `caller` (null: the connection's certificate was refused). */
    async process(message: Buffer, caller: KmipCaller | { refused: KmipError }): Promise<Buffer> {
      let decoded;
      try {
        decoded = decodeTtlv(message, deps.limits);
      } catch (err) {
        if (err instanceof TtlvError)
          return refuseMessage(
            null,
            new KmipError('InvalidMessage', `the message is not valid TTLV: ${err.message}`),
          );
        throw err;
      }
      const version = claimedVersion(decoded);
      let request;
      try {
        request = readRequest(decoded);
      } catch (err) {
        if (err instanceof KmipError) return refuseMessage(version, err);
        throw err;
      }
      if (!isSupported(request.version))
        return refuseMessage(
          null,
          new KmipError(
            'InvalidMessage',
            `KMIP ${request.version.major}.${request.version.minor} is not spoken here (2.0, 1.4 to 1.0)`,
          ),
        );
      if ('refused' in caller)
        return answer(
          request.version,
          request.items.map((item) => failure(item.operation, item.id, caller.refused)),
        );
      if (request.continuation === 'Undo')
        return answer(request.version, [
          failure(
            null,
            null,
            new KmipError(
              'FeatureNotSupported',
              'the Undo batch error option is not offered: use Stop or Continue',
            ),
          ),
        ]);
      const ctx: OperationContext = {
        version: request.version,
        actor: caller.actor,
        meta: caller.meta,
        gate: deps.gate,
        keys: deps.keys(),
        crypto: deps.crypto(),
        certs: deps.certs(),
        credentials: deps.credentials(),
        touched: new Set(),
        placeholder: null,
      };
      const items: ResponseItem[] = [];
      for (const run of runsOf(request.items)) {
        // A run of cryptographic items that each name their key goes together: their records
        // share one group commit (docs/kmip.md#operations). Otherwise one item at a time.
        const results = await Promise.all(
          run.map((item) => runItem(ctx, item.operation, item.id, item.payload)),
        );
        const failedAt = results.findIndex((r) => r.status !== 'Success');
        if (failedAt >= 0 && request.continuation === 'Stop') {
          items.push(...results.slice(0, failedAt + 1));
          break;
        }
        items.push(...results);
      }
      deps.touched(ctx.touched);
      const out = answer(request.version, items);
      if (request.maximumResponseSize !== null && out.length > request.maximumResponseSize)
        return answer(request.version, [
          failure(
            null,
            null,
            new KmipError(
              'ResponseTooLarge',
              `the answer is ${out.length} bytes, over the ${request.maximumResponseSize} asked for`,
            ),
          ),
        ]);
      return out;
    },
    refuseMessage,
  };
}

export type KmipProcessor = ReturnType<typeof createKmipProcessor>;
