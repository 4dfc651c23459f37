import {
  BATCH_ERROR_CONTINUATION,
  RESULT_REASON,
  RESULT_STATUS,
  TAG,
  tagName,
  type ResultReasonName,
} from './kmip.tags.js';
import type { Ttlv, TtlvType } from './kmip.ttlv.js';

/** A refusal of one batch item (or of the whole message): the Result Reason and a clear message. */
export class KmipError extends Error {
  constructor(
    readonly reason: ResultReasonName,
    message: string,
  ) {
    super(message);
    this.name = 'KmipError';
  }
}

export interface ProtocolVersion {
  major: number;
  minor: number;
}

/** The versions KSP speaks, newest first (the order Discover Versions answers in). */
export const SUPPORTED_VERSIONS: readonly ProtocolVersion[] = [
  { major: 2, minor: 0 },
  { major: 1, minor: 4 },
  { major: 1, minor: 3 },
  { major: 1, minor: 2 },
  { major: 1, minor: 1 },
  { major: 1, minor: 0 },
];

export const isSupported = (v: ProtocolVersion) =>
  SUPPORTED_VERSIONS.some((s) => s.major === v.major && s.minor === v.minor);

export interface RequestItem {
  operation: number;
  /** Unique Batch Item ID, echoed in the answer. */
  id: Buffer | null;
  payload: Ttlv & { type: 'Structure' };
}

export interface KmipRequest {
  version: ProtocolVersion;
  /** Bytes the client accepts in the answer (null: no limit of its own). */
  maximumResponseSize: number | null;
  continuation: keyof typeof BATCH_ERROR_CONTINUATION;
  items: RequestItem[];
}

export interface ResponseItem {
  operation: number | null;
  id: Buffer | null;
  status: keyof typeof RESULT_STATUS;
  reason?: ResultReasonName;
  message?: string;
  /** The Response Payload's items (absent: no payload). */
  payload?: Ttlv[];
}

type Structure = Ttlv & { type: 'Structure' };

/** A type as the specification writes it, with its article ("a Text String", "an Integer"). */
const typeName = (type: TtlvType) => {
  const words = type.replace('DateTime', 'Date-Time').replace(/([a-z])([A-Z])/g, '$1 $2');
  return `${/^[AEIOU]/.test(words) ? 'an' : 'a'} ${words}`;
};

/* ---- reading a structure's fields ---- */

const where = (parent: Structure) => tagName(parent.tag);

/** The items of `parent` tagged `tag`. */
export const all = (parent: Structure, tag: number): Ttlv[] =>
  parent.value.filter((item) => item.tag === tag);

/** The one item tagged `tag` of the type `type`, or undefined; a second one or another type is refused. */
export function optional<T extends TtlvType>(
  parent: Structure,
  tag: number,
  type: T,
): (Ttlv & { type: T }) | undefined {
  const found = all(parent, tag);
  if (found.length > 1)
    throw new KmipError('InvalidField', `${where(parent)}: ${tagName(tag)} is given more than once`);
  const item = found[0];
  if (!item) return undefined;
  if (item.type !== type)
    throw new KmipError(
      'InvalidField',
      `${where(parent)}: ${tagName(tag)} must be ${typeName(type)}, not ${typeName(item.type)}`,
    );
  return item as Ttlv & { type: T };
}

/** Like `optional`, but a missing item is refused (Missing Data). */
export function required<T extends TtlvType>(parent: Structure, tag: number, type: T): Ttlv & { type: T } {
  const item = optional(parent, tag, type);
  if (!item) throw new KmipError('MissingData', `${where(parent)}: ${tagName(tag)} is required`);
  return item;
}

const item = <T extends TtlvType>(tag: number, type: T, value: (Ttlv & { type: T })['value']) =>
  ({ tag, type, value }) as Ttlv & { type: T };

/** Builders for answers. */
export const ttlv = {
  structure: (tag: number, value: Ttlv[]) => item(tag, 'Structure', value),
  integer: (tag: number, value: number) => item(tag, 'Integer', value),
  enumeration: (tag: number, value: number) => item(tag, 'Enumeration', value),
  text: (tag: number, value: string) => item(tag, 'TextString', value),
  bytes: (tag: number, value: Buffer) => item(tag, 'ByteString', value),
  boolean: (tag: number, value: boolean) => item(tag, 'Boolean', value),
  longInteger: (tag: number, value: bigint) => item(tag, 'LongInteger', value),
  dateTime: (tag: number, at: Date) => item(tag, 'DateTime', BigInt(Math.floor(at.getTime() / 1000))),
};

/* ---- the request ---- */

function readVersion(parent: Structure): ProtocolVersion {
  const version = required(parent, TAG.ProtocolVersion, 'Structure');
  return {
    major: required(version, TAG.ProtocolVersionMajor, 'Integer').value,
    minor: required(version, TAG.ProtocolVersionMinor, 'Integer').value,
  };
}

/**
 * The version a message says it speaks, read as leniently as possible (for the answer to a
 * message that is otherwise refused), or null.
 */
export function claimedVersion(message: Ttlv): ProtocolVersion | null {
  try {
    if (message.type !== 'Structure') return null;
    const header = optional(message, TAG.RequestHeader, 'Structure');
    return header ? readVersion(header) : null;
  } catch {
    return null;
  }
}

/** Reads a Request Message; a message that breaks the rules is refused whole (Invalid Message). */
export function readRequest(message: Ttlv): KmipRequest {
  try {
    if (message.tag !== TAG.RequestMessage || message.type !== 'Structure')
      throw new KmipError('InvalidMessage', 'the message is not a Request Message');
    const header = required(message, TAG.RequestHeader, 'Structure');
    const version = readVersion(header);
    const count = required(header, TAG.BatchCount, 'Integer').value;
    const batch = all(message, TAG.BatchItem);
    if (count !== batch.length)
      throw new KmipError(
        'InvalidMessage',
        `Batch Count says ${count}, the message has ${batch.length} Batch Items`,
      );
    if (count < 1) throw new KmipError('InvalidMessage', 'the message has no Batch Item');
    const continuation = optional(header, TAG.BatchErrorContinuationOption, 'Enumeration')?.value ?? 2;
    const named = (Object.keys(BATCH_ERROR_CONTINUATION) as (keyof typeof BATCH_ERROR_CONTINUATION)[]).find(
      (k) => BATCH_ERROR_CONTINUATION[k] === continuation,
    );
    if (!named)
      throw new KmipError('InvalidField', `Batch Error Continuation Option ${continuation} is not defined`);
    const items = batch.map((entry): RequestItem => {
      if (entry.type !== 'Structure')
        throw new KmipError('InvalidMessage', 'a Batch Item must be a Structure');
      const payload =
        optional(entry, TAG.RequestPayload, 'Structure') ?? ttlv.structure(TAG.RequestPayload, []);
      return {
        operation: required(entry, TAG.Operation, 'Enumeration').value,
        id: optional(entry, TAG.UniqueBatchItemId, 'ByteString')?.value ?? null,
        payload,
      };
    });
    const limit = optional(header, TAG.MaximumResponseSize, 'Integer')?.value;
    return { version, maximumResponseSize: limit ?? null, continuation: named, items };
  } catch (err) {
    if (err instanceof KmipError && err.reason !== 'InvalidMessage')
      throw new KmipError('InvalidMessage', err.message);
    throw err;
  }
}

/* ---- the response ---- */

/** The Response Message for `items`, in `version`, stamped `at`. */
export function responseMessage(version: ProtocolVersion, at: Date, items: ResponseItem[]): Ttlv {
  const header = ttlv.structure(TAG.ResponseHeader, [
    ttlv.structure(TAG.ProtocolVersion, [
      ttlv.integer(TAG.ProtocolVersionMajor, version.major),
      ttlv.integer(TAG.ProtocolVersionMinor, version.minor),
    ]),
    ttlv.dateTime(TAG.TimeStamp, at),
    ttlv.integer(TAG.BatchCount, items.length),
  ]);
  const batch = items.map((answer) =>
    ttlv.structure(TAG.BatchItem, [
      ...(answer.operation !== null ? [ttlv.enumeration(TAG.Operation, answer.operation)] : []),
      ...(answer.id ? [ttlv.bytes(TAG.UniqueBatchItemId, answer.id)] : []),
      ttlv.enumeration(TAG.ResultStatus, RESULT_STATUS[answer.status]),
      ...(answer.reason ? [ttlv.enumeration(TAG.ResultReason, RESULT_REASON[answer.reason])] : []),
      ...(answer.message ? [ttlv.text(TAG.ResultMessage, answer.message)] : []),
      ...(answer.payload ? [ttlv.structure(TAG.ResponsePayload, answer.payload)] : []),
    ]),
  );
  return ttlv.structure(TAG.ResponseMessage, [header, ...batch]);
}

/** A failed item's answer. */
export const failure = (operation: number | null, id: Buffer | null, err: KmipError): ResponseItem => ({
  operation,
  id,
  status: 'OperationFailed',
  reason: err.reason,
  message: err.message,
});
