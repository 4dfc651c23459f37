import { z } from 'zod';

/**
 * Text rules the server enforces and the console checks before sending: one definition,
 * so a field the console accepts is never refused by the server, or the other way round.
 */

/** Standard Base64 with `=` padding (RFC 4648 §4), the only form the API takes. */
export const BASE64_PATTERN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function isBase64Text(text: string): boolean {
  return BASE64_PATTERN.test(text);
}

/** A Base64 field of at most `max` characters. */
export const base64Text = (max: number) =>
  z.string().trim().max(max).regex(BASE64_PATTERN, { message: 'must be Base64' });

/**
 * The names of domains, roles and registration tokens: a letter or digit of any script
 * first, then letters, digits, spaces, `_`, `.` and `-`.
 */
export const NAME_PATTERN = /^[\p{L}\p{N}][\p{L}\p{N} _.-]*$/u;
export const objectName = (max: number) => z.string().trim().min(1).max(max).regex(NAME_PATTERN);

/**
 * A directory user signs in as `<connection>/<user>` and is stored under that name; a
 * local username therefore never holds the separator.
 */
export const DIRECTORY_SEPARATOR = '/';

export function isDirectoryUsername(username: string): boolean {
  return username.includes(DIRECTORY_SEPARATOR);
}

export function directoryUsername(connection: string, user: string): string {
  return `${connection}${DIRECTORY_SEPARATOR}${user}`;
}

/** The connection and the user of a directory username (split at the first separator), or null. */
export function splitDirectoryUsername(username: string): { connection: string; user: string } | null {
  const at = username.indexOf(DIRECTORY_SEPARATOR);
  if (at < 0) return null;
  return { connection: username.slice(0, at), user: username.slice(at + 1) };
}

/**
 * A UTF-16 surrogate that is not half of a pair (`"\ud800"` in JSON): the text is not
 * well-formed Unicode and cannot be written as UTF-8. With the `u` flag a pair is one code
 * point, so only a lone half matches.
 */
const LONE_SURROGATE = /\p{Surrogate}/u;
/** Any surrogate code unit at all: the cheap test that clears almost every string. */
const ANY_SURROGATE = /[\uD800-\uDFFF]/;

/** Whether `text` is well-formed UTF-16 (String.prototype.isWellFormed, for every runtime). */
export function isWellFormedText(text: string): boolean {
  return !ANY_SURROGATE.test(text) || !LONE_SURROGATE.test(text);
}
