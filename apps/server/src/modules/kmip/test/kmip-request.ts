import { ttlv } from '../kmip.message.js';
import { TAG } from '../kmip.tags.js';
import { encodeTtlv, type Ttlv } from '../kmip.ttlv.js';

/**
 * A Request Message in KMIP `major.minor` of `items` (an operation's number and its payload);
 * `continueOnError`: each item answered on its own (Batch Error Continuation Option: Continue).
 */
export function requestMessage(
  [major, minor]: [number, number],
  items: [operation: number, payload: Ttlv[]][],
  continueOnError = false,
): Buffer {
  return encodeTtlv(
    ttlv.structure(TAG.RequestMessage, [
      ttlv.structure(TAG.RequestHeader, [
        ttlv.structure(TAG.ProtocolVersion, [
          ttlv.integer(TAG.ProtocolVersionMajor, major),
          ttlv.integer(TAG.ProtocolVersionMinor, minor),
        ]),
        ...(continueOnError ? [ttlv.enumeration(TAG.BatchErrorContinuationOption, 1)] : []),
        ttlv.integer(TAG.BatchCount, items.length),
      ]),
      ...items.map(([operation, payload]) =>
        ttlv.structure(TAG.BatchItem, [
          ttlv.enumeration(TAG.Operation, operation),
          ttlv.structure(TAG.RequestPayload, payload),
        ]),
      ),
    ]),
  );
}
