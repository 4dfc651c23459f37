import { builtInConfig, builtInRoles, ROOT_DOMAIN, ROOT_DOMAIN_DESCRIPTION } from '@ksp/contracts';
import { i18n } from './i18n';

/**
 * A label the server made, in the current language: the translation of `key` while the
 * value is still the server's own text (`stock`), else the value as it came (someone
 * typed it, or the catalogue has no such key yet).
 */
export function serverLabel(key: string, value: string, stock: string = value): string {
  if (value !== stock || !i18n.exists(key)) return value;
  // A code that names a branch of the catalogue (`user.domain`) is no label.
  // A key made at run time: the typed `t` accepts only literal keys (lint cannot see that).
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
  const text: unknown = i18n.t(key as never, { returnObjects: true });
  return typeof text === 'string' ? text : value;
}

/** A configuration entry's description: built-in entries have theirs translated. */
export function configDescription(entry: { key: string; built_in: boolean; description: string }): string {
  if (!entry.built_in || !Object.hasOwn(builtInConfig, entry.key)) return entry.description;
  const stock = builtInConfig[entry.key as keyof typeof builtInConfig].description;
  return serverLabel(`labels:config.${entry.key}`, entry.description, stock);
}

/** A domain's description: the root domain's, as the server wrote it, is translated. */
export function domainDescription(domain: { name: string; description: string }): string {
  if (domain.name !== ROOT_DOMAIN) return domain.description;
  return serverLabel('labels:rootDomain', domain.description, ROOT_DOMAIN_DESCRIPTION);
}

/** A role's name: built-in roles have theirs translated; custom ones stay as typed. */
export function roleName(name: string): string {
  return Object.hasOwn(builtInRoles, name) ? serverLabel(`labels:role.${name}`, name) : name;
}

/** An audit action code (`user.login`) as words; an action without words yet shows its code. */
export function auditAction(action: string): string {
  return serverLabel(`labels:audit.${action}`, action);
}

/** A text the server made, as a message key and its parameters (`description_message`). */
export interface ServerMessage {
  key: string;
  params: Record<string, string | number>;
}

/**
 * A description the server made, in the current language (from its message key, so it follows
 * a language switch without a new request); one without a message, or whose key this console
 * does not know yet, is shown as the server sent it.
 */
export function serverText(text: string, message: ServerMessage | null | undefined): string {
  if (!message) return text;
  const key = `labels:messages.${message.key}`;
  if (!i18n.exists(key)) return text;
  // A key made at run time: the typed `t` accepts only literal keys.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
  const translated: unknown = i18n.t(key as never, { ...message.params, returnObjects: true });
  return typeof translated === 'string' ? translated : text;
}
