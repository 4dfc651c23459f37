import { algorithmInfo, type AlgorithmId } from '@ksp/contracts';

/** What import content and wrapping public keys must look like (Base64, lengths). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Base64 as pasted: PEM armour lines and whitespace (line breaks of `base64`, `openssl`) removed. */
export function normalizeBase64(text: string): string {
  return text
    .split(/\r?\n/)
    .filter((line) => !/^-----(BEGIN|END) [A-Z0-9 ]+-----$/.test(line.trim()))
    .join('')
    .replace(/\s+/g, '');
}

/** Whether `text` (normalized) is non-empty standard, padded Base64, as the contract requires. */
export function isBase64(text: string | undefined | null): boolean {
  if (!text) return false;
  const clean = normalizeBase64(text);
  return clean.length > 0 && BASE64.test(clean);
}

/** Bytes that a (valid, normalized) Base64 string decodes to. */
export function base64ByteLength(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return (base64.length / 4) * 3 - padding;
}

/** What `key/import` accepts for an algorithm (key.service.ts), for the hint and the length check. */
export type ImportExpectation =
  | { kind: 'raw'; bytes: number }
  | { kind: 'raw-range'; min: number; max: number }
  | { kind: 'sm2-scalar'; bytes: 32 }
  | { kind: 'pkcs8' }
  | { kind: 'unsupported' };

export function importExpectation(id: AlgorithmId): ImportExpectation {
  const info = algorithmInfo(id);
  if (info.pqc) return { kind: 'unsupported' };
  if (info.family === 'HMAC') return { kind: 'raw-range', min: 16, max: 128 };
  if (info.kind === 'symmetric') return { kind: 'raw', bytes: info.sizeBits / 8 };
  if (info.family === 'SM2') return { kind: 'sm2-scalar', bytes: 32 };
  return { kind: 'pkcs8' };
}

/** The content's length problem, or null when it fits (PKCS#8 structure is the server's to check). */
export function importLengthProblem(
  id: AlgorithmId,
  content: string,
): { expected: string; got: number } | null {
  const expectation = importExpectation(id);
  const got = base64ByteLength(normalizeBase64(content));
  switch (expectation.kind) {
    case 'raw':
    case 'sm2-scalar':
      return got === expectation.bytes ? null : { expected: String(expectation.bytes), got };
    case 'raw-range':
      return got >= expectation.min && got <= expectation.max
        ? null
        : { expected: `${expectation.min}–${expectation.max}`, got };
    default:
      return null;
  }
}
