import { randomUUID } from 'node:crypto';
import { CLIENT_HEARTBEAT_SECONDS, type api, type ClientType, type Input } from '@ksp/contracts';
import type { AuditWriter } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db } from '../../platform/db/database.js';
import type { ClientTable } from '../../platform/db/schema.js';
import { KspError } from '../../platform/errors.js';
import type { RequestMeta } from '../../platform/http/route.js';
import type { ModuleServices } from '../../platform/module.js';
import { certificateColumns, insertClient } from './client.store.js';
import { agentSubject } from './client.view.js';

/** The registration token usage each client type enrols with (a TDE agent is a "cte" token). */
const usageOf: Record<ClientType, 'cte' | 'rdm' | 'kadp' | 'kmip'> = {
  tde: 'cte',
  rdm: 'rdm',
  kadp: 'kadp',
  kmip: 'kmip',
};

/** Agent enrolment (public): a registration token, the licence quota, a CSR signed for the client. */
export function createEnrolment(deps: {
  db: Db;
  clock: Clock;
  audit: AuditWriter;
  certs: () => ModuleServices['certs'];
  tokens: () => ModuleServices['registrationTokens'];
  license: () => ModuleServices['license'];
  /** The agent listener's port while it listens (the answer names it). */
  heartbeatPort: () => number | null;
}) {
  const { db, clock, audit } = deps;

  async function enrolClient(meta: RequestMeta, body: Input<typeof api.client.enrol>) {
    const token = await deps.tokens().lookup(body.token);
    await deps.license().checkQuota(`${body.type}_clients`, 1);
    const issued = await deps
      .certs()
      .prepareClientCertificate(
        token.domainId,
        { csr: body.csr, ip: meta.ip, action: 'client.enrol' },
        token.certValidityDays,
      );
    const at = clock().toISOString();
    const row: ClientTable = {
      id: randomUUID(),
      domain_id: token.domainId,
      name: body.name,
      type: body.type,
      os: body.os,
      agent_version: body.agent_version,
      mac: body.mac,
      host: body.host,
      state: 'active',
      profile: null,
      groups: '[]',
      token_id: token.tokenId,
      token_name: token.name,
      cert_validity_days: token.certValidityDays,
      ...certificateColumns(issued),
      last_request_ms: 0,
      communication_enabled: 1,
      client_locked: 0,
      role_id: null,
      last_seen_at: at,
      registered_at: at,
      updated_at: at,
    };
    await db.transaction().execute(async (trx) => {
      // The exact quota check first (its lock orders concurrent enrolments on every node).
      await deps.license().claimOne(trx, `${body.type}_clients`, 1);
      // The use is spent, the certificate and the client kept together: a token exhausted
      // meanwhile leaves nothing behind. A token of another usage is "unknown" here.
      const spent = await deps.tokens().redeem(trx, body.token, usageOf[body.type]);
      await issued.store(trx);
      await insertClient(trx, row);
      await audit.write(trx, {
        who: { userId: null, username: `token:${spent.name}`, domainId: spent.domainId, domainName: '' },
        action: 'client.enrol',
        target: row.name,
        result: 'success',
        ip: meta.ip,
        objectId: row.id,
        details: { token: spent.name, type: row.type, serial: issued.serial, ca: issued.ca.name },
      });
    });
    return {
      client_id: row.id,
      certificate_pem: issued.certificatePem,
      chain_pem: issued.chainPem,
      serial: issued.serial,
      not_after: issued.notAfter,
      heartbeat_seconds: CLIENT_HEARTBEAT_SECONDS,
      heartbeat_port: deps.heartbeatPort(),
    };
  }

  /** Token, quota, CSR; every refusal audited, never the secret. */
  return async function enrol(meta: RequestMeta, body: Input<typeof api.client.enrol>) {
    try {
      return await enrolClient(meta, body);
    } catch (err) {
      await audit.write(db, {
        who: agentSubject(),
        action: 'client.enrol',
        target: body.name,
        result: 'failure',
        ip: meta.ip,
        details: { type: body.type, reason: err instanceof KspError ? err.messageKey : 'error' },
      });
      throw err;
    }
  };
}
