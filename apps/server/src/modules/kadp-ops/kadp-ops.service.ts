import { v7 as uuidv7 } from 'uuid';
import {
  KadpCryptoPayload,
  type api,
  type Input,
  type KadpOperation,
  type KadpOperationRow,
  type QueryInput,
} from '@ksp/contracts';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db } from '../../platform/db/database.js';
import type { ClientTable } from '../../platform/db/schema.js';
import { invalid, KspError, notFound } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { ModuleServices } from '../../platform/module.js';
import { systemActor } from '../../platform/system-actor.js';
import { domainName, insertOperation, kadpClientExists, keyName, listOperations } from './kadp-ops.store.js';

/**
 * KADP client operations (README.md): the crypto API for a KADP client, authenticated by the
 * signed-request scheme of its heartbeats, each operation recorded for its detail page.
 */
export function createKadpOpsService(deps: {
  db: Db;
  clock: Clock;
  clients: () => ModuleServices['clients'];
  crypto: () => ModuleServices['crypto'];
}) {
  const { db, clock } = deps;

  /**
   * The client behind a signed call, or 4001 (audited as `client.crypto`): the client module's
   * checks (signature, skew, order, certificate, communication), a KADP client, active.
   * Refusals count toward the address's limit: past 30 a minute, HTTP 429 before any check.
   */
  function authenticate(meta: RequestMeta, body: Input<typeof api.kadpOps.crypto>): Promise<ClientTable> {
    return deps
      .clients()
      .authenticateCall(meta, body, 'client.crypto', (row) => row.type === 'kadp' && row.state === 'active');
  }

  async function recordOp(
    row: ClientTable,
    op: KadpOperation,
    keyId: string,
    result: 'success' | 'failure',
    reason: string,
  ) {
    const name = await keyName(db, row.domain_id, keyId);
    await insertOperation(db, {
      // Time-ordered (monotonic within the process): the list shows one instant's operations in order.
      id: uuidv7(),
      domain_id: row.domain_id,
      client_id: row.id,
      at: clock().toISOString(),
      operation: op,
      key_id: keyId,
      key_name: name ?? '-',
      result,
      reason,
    });
  }

  return {
    async crypto(meta: RequestMeta, body: Input<typeof api.kadpOps.crypto>) {
      const row = await authenticate(meta, body);
      let payload: KadpCryptoPayload;
      try {
        payload = KadpCryptoPayload.parse(JSON.parse(body.payload));
      } catch (err) {
        throw invalid('kadp.payload', {
          reason:
            err instanceof SyntaxError ? 'JSON' : err instanceof Error ? err.message.slice(0, 200) : 'error',
        });
      }
      // The client acts in its own domain with key:use only: the crypto service's checks (key of
      // the domain, in use, usage mask) and its audit and counters apply as to any caller.
      const actor = systemActor({
        username: `client:${row.name}`,
        domainId: row.domain_id,
        domainName: (await domainName(db, row.domain_id)) ?? '',
        permissions: ['key:use'],
        kind: 'app',
      });
      try {
        const answer =
          payload.op === 'encrypt'
            ? await deps.crypto().encrypt(actor, meta, {
                key_id: payload.key_id,
                plaintext: payload.plaintext,
                ...(payload.aad ? { aad: payload.aad } : {}),
              })
            : await deps.crypto().decrypt(actor, meta, {
                key_id: payload.key_id,
                ciphertext: payload.ciphertext,
                ...(payload.aad ? { aad: payload.aad } : {}),
              });
        await recordOp(row, payload.op, payload.key_id, 'success', '');
        return answer as { key_id: string; version?: number; ciphertext?: string; plaintext?: string };
      } catch (err) {
        await recordOp(
          row,
          payload.op,
          payload.key_id,
          'failure',
          err instanceof KspError ? err.messageKey : 'error',
        );
        throw err;
      }
    },

    async operations(actor: Actor, query: QueryInput<typeof api.kadpOps.operations>) {
      if (!(await kadpClientExists(db, actor.domainId, query.id)))
        throw notFound('client.notFound', { id: query.id });
      const { rows, total } = await listOperations(db, query.id, query);
      const data: KadpOperationRow[] = rows.map((r) => ({
        id: r.id,
        at: r.at,
        operation: r.operation as KadpOperation,
        key_id: r.key_id,
        key_name: r.key_name,
        result: r.result as 'success' | 'failure',
        reason: r.reason,
      }));
      return { data, total };
    },
  };
}

export type KadpOpsService = ReturnType<typeof createKadpOpsService>;
