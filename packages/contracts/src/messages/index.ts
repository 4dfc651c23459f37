/**
 * Server messages in English and Chinese, one file per area. Templates use `{name}`
 * placeholders. The server picks the caller's language; the console shows `msg` as it comes.
 */
import { authMessages } from './auth.js';
import { configMessages } from './config.js';
import type { KeysOf, Language } from './define.js';
import { domainMessages } from './domain.js';
import { errorsMessages } from './errors.js';
import { keyMessages } from './key.js';
import { certMessages } from './cert.js';
import { quantumMessages } from './quantum.js';
import { logMessages } from './log.js';
import { syslogMessages } from './syslog.js';
import { alarmMessages } from './alarm.js';
import { licenseMessages } from './license.js';
import { hsmMessages } from './hsm.js';
import { credentialMessages } from './credential.js';
import { sshServerMessages } from './ssh-server.js';
import { clientMessages } from './client.js';
import { tdePolicyMessages } from './tde-policy.js';
import { tdeClientMessages } from './tde-client.js';
import { kadpOpsMessages } from './kadp-ops.js';
import { kmipMessages } from './kmip.js';
import { tdeDatabaseMessages } from './tde-database.js';
import { schedulerMessages } from './scheduler.js';
import { backupMessages } from './backup.js';
import { ldapMessages } from './ldap.js';
import { passwordMessages } from './password.js';
import { roleMessages } from './role.js';
import { systemMessages } from './system.js';
import { tokenMessages } from './token.js';
import { userMessages } from './user.js';

export { defineMessages, languages, type Language, type Messages } from './define.js';

/** Every area's messages: a new area adds its file here. */
export const areaMessages = [
  errorsMessages,
  authMessages,
  systemMessages,
  passwordMessages,
  configMessages,
  domainMessages,
  roleMessages,
  userMessages,
  tokenMessages,
  ldapMessages,
  keyMessages,
  certMessages,
  quantumMessages,
  logMessages,
  syslogMessages,
  alarmMessages,
  licenseMessages,
  hsmMessages,
  credentialMessages,
  sshServerMessages,
  clientMessages,
  tdePolicyMessages,
  tdeClientMessages,
  kadpOpsMessages,
  kmipMessages,
  tdeDatabaseMessages,
  schedulerMessages,
  backupMessages,
] as const;

export type MessageKey = KeysOf<(typeof areaMessages)[number]>;

const merge = (lang: Language) =>
  Object.assign({}, ...areaMessages.map((messages) => messages[lang])) as Record<MessageKey, string>;
const catalogue = { en: merge('en'), zh: merge('zh') };
export type MessageParams = Record<string, string | number>;

export function pickLanguage(header: string | undefined, cookie?: string): Language {
  const fromCookie = cookie?.toLowerCase();
  if (fromCookie) {
    if (fromCookie.startsWith('zh')) return 'zh';
    if (fromCookie.startsWith('en')) return 'en';
  }
  if (!header) return 'en';
  const ranked = header
    .split(',')
    .map((part, index) => {
      const [tag = '', ...rest] = part.trim().split(';');
      const q = rest.find((p) => p.trim().startsWith('q='));
      const weight = q ? Number(q.trim().slice(2)) : 1;
      return { tag: tag.toLowerCase(), weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  for (const { tag } of ranked) {
    if (tag.startsWith('zh')) return 'zh';
    if (tag.startsWith('en')) return 'en';
  }
  return 'en';
}

export function formatMessage(key: MessageKey, lang: Language, params: MessageParams = {}): string {
  const template = catalogue[lang][key];
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in params ? String(params[name]) : whole,
  );
}

export const messageKeys = Object.keys(catalogue.en) as MessageKey[];
