import { createHash, verify, X509Certificate, type KeyObject } from 'node:crypto';
import { CLIENT_SIGNATURE_SKEW_SECONDS, signedText, type api, type Input } from '@ksp/contracts';
import type { ClientTable } from '../../platform/db/schema.js';

/**
 * The checks of a signed agent call that need no database write and no other module: shared
 * by the client service (on the API's event loop) and the agent listener's thread
 * (`agent-listener.worker.ts`), so that both judge a call alike.
 */

export type SignedCall = Input<typeof api.client.heartbeat>;
export type RefusalReason = 'unknown' | 'signature' | 'stale' | 'certificate' | 'communication';

/**
 * Refused agent calls an address may send per minute: past it, HTTP 429 before any check (and
 * only the first such answer of the minute is audited), so that forged calls can neither keep
 * the server verifying signatures nor fill the audit trail. Counted in memory per node.
 */
export const HEARTBEAT_REFUSALS_PER_MINUTE = 30;

/** Checked certificates a node remembers at most (forgotten wholesale beyond). */
const CERT_CACHE_MAX = 50_000;

const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Verifies an agent's signature with its certificate's key (EC: DER ECDSA SHA-256; RSA: PKCS#1 v1.5 SHA-256; Ed25519). */
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
 * The client row with what can change about its certificate (the certificate row's
 * revocation, its CA's end), in one statement ending in the client id's placeholder: every
 * agent call reads it, so it is written out once rather than built by a query builder.
 */
export const AGENT_ROW_SQL = `select cl.*, c.revoked_at as cert_revoked_at, ca.not_after as ca_not_after, c.ca_id is not null as cert_found
      from client cl
      left join cert_certificate c on c.id = cl.cert_id
      left join cert_ca ca on ca.id = c.ca_id
      where cl.id = `;

export type AgentRowResult = ClientTable & {
  cert_revoked_at: string | null;
  ca_not_after: string | null;
  cert_found: number | boolean | null;
};

export interface AgentRead {
  row: ClientTable;
  /** The certificate row's state, when the row is there. */
  cert: { revoked_at: string | null; ca_not_after: string | null } | undefined;
}

export function agentRead(found: AgentRowResult | undefined): AgentRead | undefined {
  if (!found) return undefined;
  const { cert_revoked_at, ca_not_after, cert_found, ...row } = found;
  return { row, cert: cert_found ? { revoked_at: cert_revoked_at, ca_not_after } : undefined };
}

/**
 * Client certificates this node checked in full (issuing CA, its signature, usage), by client
 * id and serial, with their public key: a later call costs a signature verification and one
 * indexed read, not two certificate parses and the CA's signature. What the full check found
 * cannot change for the same certificate (its bytes, its issuer's signature, its usage); what
 * can is read on every call: the certificate row still there and not revoked, its issuing CA
 * still there and not expired, the validity dates.
 */
export class CheckedCertificates {
  private readonly keys = new Map<string, KeyObject>();
  get(row: ClientTable): KeyObject | undefined {
    return this.keys.get(`${row.id}:${row.cert_serial}`);
  }
  forget(row: ClientTable): void {
    this.keys.delete(`${row.id}:${row.cert_serial}`);
  }
  remember(row: ClientTable, publicKey: KeyObject): void {
    if (this.keys.size >= CERT_CACHE_MAX) this.keys.clear();
    this.keys.set(`${row.id}:${row.cert_serial}`, publicKey);
  }
}

export type Judgement =
  | { refused: RefusalReason; row?: ClientTable }
  /** Accepted by the checks here; `fullCheck` set: the certificate must be checked in full first. */
  | { row: ClientTable; fullCheck: { der: Buffer; publicKey: KeyObject } | null };

/**
 * The signature, the timestamp's skew and order, the communication switch and (for a
 * certificate this node checked in full before) what can change about the certificate.
 */
export function judgeAgentCall(
  read: AgentRead | undefined,
  body: SignedCall,
  at: number,
  checked: CheckedCertificates,
): Judgement {
  const row = read?.row;
  if (!row || row.state === 'deleted') return { refused: 'unknown', ...(row ? { row } : {}) };
  const cached = checked.get(row);
  const cert = cached ? undefined : new X509Certificate(row.cert_pem);
  const publicKey = cached ?? cert!.publicKey;
  const text = signedText(row.id, body.timestamp, sha256Hex(body.payload));
  if (!verifySignature(publicKey, Buffer.from(text, 'utf8'), Buffer.from(body.signature, 'base64')))
    return { refused: 'signature', row };
  if (
    Math.abs(body.timestamp - at) > CLIENT_SIGNATURE_SKEW_SECONDS * 1000 ||
    body.timestamp <= Number(row.last_request_ms)
  )
    return { refused: 'stale', row };
  // Communication disabled on the TDE / RDM pages: the agent is refused until re-enabled.
  if (Number(row.communication_enabled) === 0) return { refused: 'communication', row };
  if (cached) {
    const stored = read.cert;
    const valid =
      Date.parse(row.cert_not_before) <= at &&
      Date.parse(row.cert_not_after) > at &&
      !!stored?.ca_not_after &&
      Date.parse(stored.ca_not_after) > at;
    if (stored && !stored.revoked_at && valid) return { row, fullCheck: null };
  }
  // A full check: the first call, or when the quick one found something wrong.
  checked.forget(row);
  const full = cert ?? new X509Certificate(row.cert_pem);
  return { row, fullCheck: { der: Buffer.from(full.raw), publicKey } };
}
