import { formatMessage, type Language, type MessageKey } from '@ksp/contracts';
import { KspError } from './errors.js';

/**
 * Messages kept in the database to be read later (a background run's error): stored as a
 * message key and its parameters (JSON) and put in the reader's language when read. Text
 * without a key (a database's own error) is kept as it is.
 */
export const storedMessage = (key: MessageKey, params: Record<string, string | number> = {}): string =>
  JSON.stringify({ key, params });

/** An error as stored: its message key when it has one, its text otherwise. */
export const storedError = (err: unknown): string =>
  err instanceof KspError
    ? storedMessage(err.messageKey, err.params)
    : err instanceof Error
      ? err.message
      : String(err);

/** A stored message in `lang`; stored messages inside parameters (a reason) are put in it too. */
export function localized(text: string | null, lang: Language): string | null {
  if (text === null || !text.startsWith('{"key":')) return text;
  try {
    const { key, params } = JSON.parse(text) as { key: MessageKey; params: Record<string, string | number> };
    const inner = Object.fromEntries(
      Object.entries(params).map(([name, value]) => [
        name,
        typeof value === 'string' ? (localized(value, lang) ?? value) : value,
      ]),
    );
    return formatMessage(key, lang, inner);
  } catch {
    return text;
  }
}
