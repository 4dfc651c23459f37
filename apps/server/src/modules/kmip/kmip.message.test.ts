import { describe, expect, it } from 'vitest';
import { KmipError, readRequest, responseMessage, ttlv } from './kmip.message.js';
import { OPERATION, TAG } from './kmip.tags.js';
import { decodeTtlv, encodeTtlv, type Ttlv } from './kmip.ttlv.js';

const header = (count: number, extra: Ttlv[] = []) =>
  ttlv.structure(TAG.RequestHeader, [
    ttlv.structure(TAG.ProtocolVersion, [
      ttlv.integer(TAG.ProtocolVersionMajor, 1),
      ttlv.integer(TAG.ProtocolVersionMinor, 2),
    ]),
    ttlv.integer(TAG.BatchCount, count),
    ...extra,
  ]);
const item = (operation: number, payload: Ttlv[] = [], id?: Buffer) =>
  ttlv.structure(TAG.BatchItem, [
    ttlv.enumeration(TAG.Operation, operation),
    ...(id ? [ttlv.bytes(TAG.UniqueBatchItemId, id)] : []),
    ttlv.structure(TAG.RequestPayload, payload),
  ]);
const request = (...parts: Ttlv[]) => ttlv.structure(TAG.RequestMessage, parts);

const refusal = (message: Ttlv) => {
  try {
    readRequest(message);
  } catch (err) {
    if (err instanceof KmipError) return `${err.reason}: ${err.message}`;
    throw err;
  }
  return 'accepted';
};

describe('KMIP request messages', () => {
  it('reads the version, the batch and its options', () => {
    const read = readRequest(
      request(
        header(2, [
          ttlv.enumeration(TAG.BatchErrorContinuationOption, 1),
          ttlv.integer(TAG.MaximumResponseSize, 4096),
        ]),
        item(OPERATION.Query, [], Buffer.from([1])),
        item(OPERATION.DiscoverVersions),
      ),
    );
    expect(read).toMatchObject({
      version: { major: 1, minor: 2 },
      continuation: 'Continue',
      maximumResponseSize: 4096,
    });
    expect(read.items.map((i) => [i.operation, i.id])).toEqual([
      [OPERATION.Query, Buffer.from([1])],
      [OPERATION.DiscoverVersions, null],
    ]);
  });

  it('stops at the first failure unless the header says otherwise', () => {
    expect(readRequest(request(header(1), item(OPERATION.Query))).continuation).toBe('Stop');
  });

  it('refuses a message whose batch count lies, that has no item, or whose fields have the wrong type', () => {
    expect(refusal(request(header(2), item(OPERATION.Query)))).toBe(
      'InvalidMessage: Batch Count says 2, the message has 1 Batch Items',
    );
    expect(refusal(request(header(0)))).toBe('InvalidMessage: the message has no Batch Item');
    expect(refusal(request(item(OPERATION.Query)))).toBe(
      'InvalidMessage: Request Message: Request Header is required',
    );
    expect(refusal(request(header(1), ttlv.structure(TAG.BatchItem, [ttlv.integer(TAG.Operation, 1)])))).toBe(
      'InvalidMessage: Batch Item: Operation must be an Enumeration, not an Integer',
    );
    expect(refusal(ttlv.structure(TAG.ResponseMessage, []))).toBe(
      'InvalidMessage: the message is not a Request Message',
    );
    expect(
      refusal(request(header(1, [ttlv.enumeration(TAG.BatchErrorContinuationOption, 9)]), item(1))),
    ).toMatch(/^InvalidMessage: Batch Error Continuation Option 9/);
  });

  it('writes a response with the version, time stamp, count and each item’s result', () => {
    const at = new Date('2026-11-29T08:00:00Z');
    const bytes = encodeTtlv(
      responseMessage({ major: 2, minor: 0 }, at, [
        { operation: OPERATION.Query, id: Buffer.from([7]), status: 'Success', payload: [] },
        {
          operation: OPERATION.Get,
          id: null,
          status: 'OperationFailed',
          reason: 'ItemNotFound',
          message: 'no such object',
        },
      ]),
    );
    const back = decodeTtlv(bytes) as Ttlv & { type: 'Structure' };
    expect(back.tag).toBe(TAG.ResponseMessage);
    const [head, first, second] = back.value as (Ttlv & { type: 'Structure' })[];
    expect(head!.value.map((i) => i.tag)).toEqual([TAG.ProtocolVersion, TAG.TimeStamp, TAG.BatchCount]);
    expect(head!.value[1]).toEqual({
      tag: TAG.TimeStamp,
      type: 'DateTime',
      value: BigInt(at.getTime() / 1000),
    });
    expect(first!.value.map((i) => i.tag)).toEqual([
      TAG.Operation,
      TAG.UniqueBatchItemId,
      TAG.ResultStatus,
      TAG.ResponsePayload,
    ]);
    expect(second!.value).toEqual([
      { tag: TAG.Operation, type: 'Enumeration', value: OPERATION.Get },
      { tag: TAG.ResultStatus, type: 'Enumeration', value: 1 },
      { tag: TAG.ResultReason, type: 'Enumeration', value: 1 },
      { tag: TAG.ResultMessage, type: 'TextString', value: 'no such object' },
    ]);
  });
});
