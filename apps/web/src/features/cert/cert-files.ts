/** Files of the certificates area: the server's downloads saved, the user's files read. */
import { saveBlob } from '../../components/save-blob';

export { saveBlob };

export function base64ToBytes(base64: string): Uint8Array<ArrayBuffer> {
  const binary = atob(base64.replace(/\s+/g, ''));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  const step = 0x8000;
  for (let i = 0; i < bytes.length; i += step) {
    binary += String.fromCharCode(...bytes.subarray(i, i + step));
  }
  return btoa(binary);
}

/** A download call's answer (`content` is Base64 of the bytes) saved as the file it names. */
export function saveDownload(file: { filename: string; content_type: string; content: string }): void {
  saveBlob(file.filename, new Blob([base64ToBytes(file.content)], { type: file.content_type }));
}

export function saveText(filename: string, text: string, type = 'application/x-pem-file'): void {
  saveBlob(filename, new Blob([text], { type }));
}

/** A file the user chose: PEM stays text; anything binary (DER, a DER .p7b) becomes Base64. */
export async function readCertFile(file: Blob): Promise<{ content: string; binary: boolean }> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  if (text.includes('-----BEGIN ')) return { content: text.trim(), binary: false };
  return { content: bytesToBase64(bytes), binary: true };
}

/** Whether a text holds a private key (never sent by the online issuing page). */
export function hasPrivateKey(text: string): boolean {
  return /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/.test(text);
}

/** A file name from a display name: letters, digits, dot, dash and underscore. */
export function fileStem(name: string): string {
  return name.replace(/[^\p{L}\p{N}._-]+/gu, '_') || 'certificate';
}
