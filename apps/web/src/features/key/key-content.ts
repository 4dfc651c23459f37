import { importLengthMismatch, isBase64Text, type AlgorithmId, type ImportFormat } from '@ksp/contracts';

/** What import content and wrapping public keys must look like (Base64, lengths). */

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
  return clean.length > 0 && isBase64Text(clean);
}

/** Bytes that a (valid, normalized) Base64 string decodes to. */
export function base64ByteLength(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return (base64.length / 4) * 3 - padding;
}

/** What import takes is the contract's rule (the server checks the same). */
export { importExpectation, type ImportExpectation } from '@ksp/contracts';

/** The content's length problem, or null when it fits (PKCS#8 structure is the server's to check). */
export function importLengthProblem(
  id: AlgorithmId,
  content: string,
  format?: ImportFormat,
): { expected: string; got: number } | null {
  return importLengthMismatch(id, base64ByteLength(normalizeBase64(content)), format);
}

/** Whether `text` holds a PEM block (`-----BEGIN … KEY-----` … `-----END … KEY-----`). */
export function isPemKey(text: string | undefined | null): boolean {
  return /-----BEGIN [A-Z0-9 ]*KEY-----[\s\S]+-----END [A-Z0-9 ]*KEY-----/.test(text ?? '');
}
