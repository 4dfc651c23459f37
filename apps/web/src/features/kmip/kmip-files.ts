import { saveBlob } from '../../components/save-blob';

/** A PEM text saved as a file. */
export function savePem(filename: string, pem: string): void {
  saveBlob(filename, new Blob([pem], { type: 'application/x-pem-file' }));
}

/** A client's name as a file name: letters, digits, `.`, `_` and `-`; anything else becomes `_`. */
export function fileStem(name: string): string {
  return name.replace(/[^\p{L}\p{N}._-]+/gu, '_') || 'kmip-client';
}

/** A PEM text and the one after it, one certificate block per line run (the client's full chain). */
export function joinPem(first: string, second: string): string {
  const end = (pem: string) => (pem === '' || pem.endsWith('\n') ? pem : `${pem}\n`);
  return end(first) + end(second);
}

/** A PKCS#12 file answered as Base64, saved as it is. */
export function savePkcs12(filename: string, base64: string): void {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  saveBlob(filename, new Blob([bytes], { type: 'application/x-pkcs12' }));
}
