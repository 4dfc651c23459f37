import { createHash, verify, X509Certificate, type KeyObject } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import {
  CLIENT_SIGNATURE_SKEW_SECONDS,
  Code,
  KadpCryptoPayload,
  signedText,
  type api,
  type Input,
  type KadpOperation,
  type KadpOperationRow,
  type QueryInput,
} from '@ksp/contracts';
import { writeAudit } from '../../platform/audit.js';
import type { Clock } from '../../platform/auth/session.service.js';
import type { Db } from '../../platform/db/database.js';
import type { ClientTable } from '../../platform/db/schema.js';
import { invalid, KspError, notFound } from '../../platform/errors.js';
import type { Actor, RequestMeta } from '../../platform/http/route.js';
import type { ModuleServices } from '../../platform/module.js';

const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

function verifySignature(key: KeyObject, data: Buffer, signature: Buffer): boolean {
  try {
    const type = key.asymmetricKeyType;
    if (type === 'ed25519' || type === 'ed448') return verify(null, data, key, signature);
    if (type === 'ec' || type === 'rsa') return verify('sha256', data, key, signature);
    return false;
  } catch {
    return false;
  }
}

/**
 * KADP client operations (README.md): the crypto API for a KADP client, authenticated by the
 * signed-request scheme of its heartbeats, each operation recorded for its detail page.
 */
export function createKadpOpsService(deps: {
  db: Db;
  clock: Clock;
  certs: () => ModuleServices['certs'];
  crypto: () => ModuleServices['crypto'];
}) {
  const { db, clock } = deps;

  /** The client behind a signed call, or 4001 (audited): unknown, not KADP, not active, bad signature, replayed, certificate not valid. */
  async function authenticate(
    meta: RequestMeta,
    body: Input<typeof api.kadpOps.crypto>,
  ): Promise<ClientTable> {
    const row = await db.selectFrom('client').selectAll().where('id', '=', body.client_id).executeTakeFirst();
    const refuse = async (reason: 'unknown' | 'signature' | 'stale' | 'certificate') => {
      await writeAudit(
        db,
        {
          who: {
            userId: null,
            username: row ? `client:${row.name}` : '-',
            domainId: row?.domain_id ?? null,
            domainName: '',
            source: 'api',
          },
          action: 'client.crypto',
          target: row?.name ?? body.client_id.slice(0, 64),
          result: 'failure',
          ip: meta.ip,
          details: { reason },
        },
        clock(),
      );
      return new KspError(Code.BAD_CREDENTIALS, `client.auth.${reason}`);
    };
    if (!row || row.type !== 'kadp' || row.state !== 'active') throw await refuse('unknown');
    const cert = new X509Certificate(row.cert_pem);
    const text = signedText(row.id, body.timestamp, sha256Hex(body.payload));
    if (!verifySignature(cert.publicKey, Buffer.from(text, 'utf8'), Buffer.from(body.signature, 'base64')))
      throw await refuse('signature');
    const at = clock().getTime();
    if (
      Math.abs(body.timestamp - at) > CLIENT_SIGNATURE_SKEW_SECONDS * 1000 ||
      body.timestamp <= Number(row.last_request_ms)
    )
      throw await refuse('stale');
    const checked = await deps.certs().checkClientCertificate(Buffer.from(cert.raw));
    if (!checked.ok || checked.ca.domainId !== row.domain_id || checked.serial !== row.cert_serial)
      throw await refuse('certificate');
    // One use per timestamp: a concurrent call with the same or a newer one won.
    const updated = await db
      .updateTable('client')
      .set({ last_request_ms: body.timestamp, last_seen_at: new Date(at).toISOString() })
      .where('id', '=', row.id)
      .where('last_request_ms', '<', body.timestamp)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) throw await refuse('stale');
    return row;
  }

  async function recordOp(
    row: ClientTable,
    op: KadpOperation,
    keyId: string,
    result: 'success' | 'failure',
    reason: string,
  ) {
    const key = await db
      .selectFrom('kms_key')
      .select('name')
      .where('id', '=', keyId)
      .where('domain_id', '=', row.domain_id)
      .executeTakeFirst();
    await db
      .insertInto('kadp_operation')
      .values({
        // Time-ordered (monotonic within the process): the list shows one instant's operations in order.
        id: uuidv7(),
        domain_id: row.domain_id,
        client_id: row.id,
        at: clock().toISOString(),
        operation: op,
        key_id: keyId,
        key_name: key?.name ?? '-',
        result,
        reason,
      })
      .execute();
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
      const domain = await db
        .selectFrom('domain')
        .select('name')
        .where('id', '=', row.domain_id)
        .executeTakeFirst();
      // The client acts in its own domain with key:use only: the crypto service's checks (key of
      // the domain, in use, usage mask) and its audit and counters apply as to any caller.
      const actor: Actor = {
        userId: '',
        username: `client:${row.name}`,
        domainId: row.domain_id,
        domainName: domain?.name ?? '',
        sessionId: '',
        permissions: new Set(['key:use']),
        mustChangePassword: false,
        directory: null,
        kind: 'app',
        systemScope: false,
      };
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
      const client = await db
        .selectFrom('client')
        .select('id')
        .where('id', '=', query.id)
        .where('domain_id', '=', actor.domainId)
        .where('type', '=', 'kadp')
        .executeTakeFirst();
      if (!client) throw notFound('client.notFound', { id: query.id });
      const base = db.selectFrom('kadp_operation').where('client_id', '=', client.id);
      const total = await base.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirst();
      const rows = await base
        .selectAll()
        .orderBy('at', 'desc')
        .orderBy('id', 'desc')
        .limit(query.page_size)
        .offset((query.page - 1) * query.page_size)
        .execute();
      const data: KadpOperationRow[] = rows.map((r) => ({
        id: r.id,
        at: r.at,
        operation: r.operation as KadpOperation,
        key_id: r.key_id,
        key_name: r.key_name,
        result: r.result as 'success' | 'failure',
        reason: r.reason,
      }));
      return { data, total: Number(total?.n ?? 0) };
    },
  };
}

export type KadpOpsService = ReturnType<typeof createKadpOpsService>;
