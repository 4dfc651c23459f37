import { isDirectoryUsername } from '@ksp/contracts';

/** Base64 of raw bytes (btoa takes a binary string). */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export async function sha256(text: string): Promise<Uint8Array> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return new Uint8Array(digest);
}

/** A directory user's (`connection/name`) password is bound as typed: the contract's rule. */
export { isDirectoryUsername };

/**
 * What the login form sends (docs/console.md#login-encoding): the username is trimmed; a local user's
 * username is base64(utf8) and password base64(sha256(utf8)); a directory user's are as typed.
 */
export async function encodeLogin(
  rawUsername: string,
  password: string,
): Promise<{ username: string; password: string }> {
  const username = rawUsername.trim();
  if (isDirectoryUsername(username)) return { username, password };
  return {
    username: bytesToBase64(new TextEncoder().encode(username)),
    password: bytesToBase64(await sha256(password)),
  };
}
