import {
  CLIENT_ERROR_SECONDS,
  CLIENT_WARNING_SECONDS,
  type ClientRow,
  type ClientStatus,
  type ClientType,
} from '@ksp/contracts';
import type { AuditSubject } from '../../platform/audit.js';
import type { ClientTable } from '../../platform/db/schema.js';
import type { Cuts } from './client.store.js';

/** Stored states: `deleting` = deleted by an operator, the agent has not acknowledged yet. */
export type State = 'active' | 'revoked' | 'deleting' | 'deleted';

export const iso = (ms: number) => new Date(ms).toISOString();

/** The heartbeat thresholds as times: a last heartbeat before `warn` is a warning, before `error` an error. */
export function cuts(now: number): Cuts {
  return { warn: iso(now - CLIENT_WARNING_SECONDS * 1000), error: iso(now - CLIENT_ERROR_SECONDS * 1000) };
}

export function statusOf(row: Pick<ClientTable, 'state' | 'last_seen_at'>, now: number): ClientStatus {
  const state = row.state as State;
  if (state === 'revoked') return 'revoked';
  if (state === 'deleting' || state === 'deleted') return 'deleted';
  const { warn, error } = cuts(now);
  if (row.last_seen_at >= warn) return 'healthy';
  if (row.last_seen_at >= error) return 'warning';
  return 'error';
}

/** A client's certificate as the console shows it (KADP/TDE and KMIP clients alike). */
export function certificateView(row: ClientTable, revoked: boolean) {
  return {
    id: row.cert_id,
    serial: row.cert_serial,
    not_before: row.cert_not_before,
    not_after: row.cert_not_after,
    ca_name: row.cert_ca_name,
    revoked,
  };
}

/** A client as the console shows it, its status as of `at`. */
export function clientView(row: ClientTable, at: number): ClientRow {
  const state = row.state as State;
  return {
    id: row.id,
    name: row.name,
    type: row.type as ClientType,
    os: row.os,
    agent_version: row.agent_version,
    mac: row.mac,
    host: row.host,
    status: statusOf(row, at),
    delete_acknowledged: state === 'deleted',
    profile: row.profile,
    groups: JSON.parse(row.groups) as string[],
    token_name: row.token_name,
    last_seen_at: row.last_seen_at,
    registered_at: row.registered_at,
    certificate: certificateView(row, state === 'revoked' || state === 'deleted'),
  };
}

/** An agent in the log: an API caller (source `api`), named `client:<name>`, or `-` when unknown. */
export const agentSubject = (row?: Pick<ClientTable, 'name' | 'domain_id'>): AuditSubject => ({
  userId: null,
  username: row ? `client:${row.name}` : '-',
  domainId: row?.domain_id ?? null,
  domainName: '',
  source: 'api',
});
