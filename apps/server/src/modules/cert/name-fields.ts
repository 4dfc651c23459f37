import { PkiError } from './pki/pki-error.js';

/** The contract's subject fields by the name attribute they fill. */
const FIELD_OF_ATTRIBUTE: Readonly<Record<string, string>> = {
  CN: 'cn',
  O: 'o',
  OU: 'ou',
  C: 'c',
  ST: 'st',
  L: 'l',
};

/**
 * The subject field (`cn`, `o`, `ou`, `c`, `st`, `l`) a refusal of the name engine is about,
 * so that `cert.invalidName` names it; `cn` when the engine named no attribute (an empty name).
 */
export function subjectFieldOf(err: unknown): string {
  const attribute = err instanceof PkiError ? err.details.attribute : undefined;
  return (typeof attribute === 'string' && FIELD_OF_ATTRIBUTE[attribute]) || 'cn';
}
