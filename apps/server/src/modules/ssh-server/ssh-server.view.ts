import type { ServerAuthType, ServerRotation, ServerRow } from '@ksp/contracts';
import type { SshServerRotationTable } from '../../platform/db/schema.js';
import type { RequestMeta } from '../../platform/http/route.js';
import { localized } from '../../platform/stored-message.js';
import type { ServerRecord } from './ssh-server.store.js';

/** The character classes a rotated password takes. */
export interface Charset {
  lower: boolean;
  upper: boolean;
  digits: boolean;
  symbols: boolean;
}

/** A server as the console shows it. */
export function serverView(row: ServerRecord): ServerRow {
  const charset = JSON.parse(row.rotation_charset) as Charset;
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    host: row.host,
    port: row.port,
    os: row.os as ServerRow['os'],
    account: row.account,
    auth_type: row.auth_type as ServerAuthType,
    credential_id: row.credential_id,
    credential_name: row.credential_name,
    host_key_fingerprint: row.host_key_fingerprint,
    host_key_type: row.host_key_type,
    rotation_enabled: Boolean(row.rotation_enabled),
    rotation_days: row.rotation_days,
    rotation_hour: row.rotation_hour,
    rotation_length: row.rotation_length,
    rotation_lower: charset.lower,
    rotation_upper: charset.upper,
    rotation_digits: charset.digits,
    rotation_symbols: charset.symbols,
    next_rotation_at: row.next_rotation_at,
    last_rotation_at: row.last_rotation_at,
    last_rotation_result: row.last_rotation_result as ServerRow['last_rotation_result'],
    terminal_users: JSON.parse(row.terminal_users) as string[],
    terminal_roles: JSON.parse(row.terminal_roles) as string[],
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A rotation of the history, its error in the caller's language. */
export const rotationView = (r: SshServerRotationTable, lang: RequestMeta['lang']): ServerRotation => ({
  id: r.id,
  at: r.at,
  trigger: r.trigger as ServerRotation['trigger'],
  by: r.by,
  result: r.result as ServerRotation['result'],
  version: r.version,
  error: localized(r.error, lang),
});

/** The first scheduled rotation `days` after `from`, at `hour` (UTC). */
export function nextRotation(from: Date, days: number, hour: number): string {
  return new Date(
    Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate() + days, hour),
  ).toISOString();
}
