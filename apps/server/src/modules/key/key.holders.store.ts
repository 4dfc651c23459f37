import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../../platform/db/database.js';

/** What the key list does with keys a certificate or CA holds (`certificate_keys`). */
export type CertificateKeys = 'hide' | 'show' | 'only';

/** The certificate or CA that holds a key, as the key list's `belongs_to`. */
export interface KeyHolder {
  kind: 'certificate' | 'ca';
  id: string;
  name: string;
}

/**
 * Whether a certificate (not deleted) or CA of the key's domain holds the `kms_key` row of the
 * enclosing query or its other half: one probe of migration 035's `key_id` indexes each.
 */
export const heldByCertificate: RawBuilder<boolean> = sql<boolean>`(exists (select 1 from cert_certificate hc
    where hc.key_id in (kms_key.id, kms_key.linked_key_id) and hc.domain_id = kms_key.domain_id
      and hc.deleted_at is null)
  or exists (select 1 from cert_ca ha
    where ha.key_id in (kms_key.id, kms_key.linked_key_id) and ha.domain_id = kms_key.domain_id))`;

/**
 * The ids of the domain's keys a certificate or CA holds, both halves: the holders' key ids by
 * their domain, and those keys' links by primary key. Few next to the domain's keys, so a
 * count over them is cheap at any size.
 */
export function heldKeyIds(domainId: string): RawBuilder<boolean> {
  const holders = sql`select key_id from cert_certificate
      where domain_id = ${domainId} and key_id is not null and deleted_at is null
    union select key_id from cert_ca where domain_id = ${domainId}`;
  return sql<boolean>`kms_key.id in (${holders}
    union select hk.linked_key_id from kms_key hk
      where hk.linked_key_id is not null and hk.id in (${holders}))`;
}

/** The holders of a page of keys (by either half's id), in one query. */
export async function holdersOf(
  db: Executor,
  domainId: string,
  rows: { id: string; linked_key_id: string | null }[],
): Promise<Map<string, KeyHolder>> {
  const ids = [...new Set(rows.flatMap((r) => (r.linked_key_id ? [r.id, r.linked_key_id] : [r.id])))];
  const byKey = new Map<string, KeyHolder>();
  if (!ids.length) return byKey;
  const found = await db
    .selectFrom('cert_certificate')
    .select([sql<string>`'certificate'`.as('kind'), 'id', 'name', 'key_id'])
    .where('domain_id', '=', domainId)
    .where('deleted_at', 'is', null)
    .where('key_id', 'in', ids)
    .unionAll(
      db
        .selectFrom('cert_ca')
        .select([sql<string>`'ca'`.as('kind'), 'id', 'name', 'key_id'])
        .where('domain_id', '=', domainId)
        .where('key_id', 'in', ids),
    )
    .execute();
  for (const h of found) {
    if (h.key_id) byKey.set(h.key_id, { kind: h.kind as KeyHolder['kind'], id: h.id, name: h.name });
  }
  const held = new Map<string, KeyHolder>();
  for (const r of rows) {
    const holder = byKey.get(r.id) ?? (r.linked_key_id ? byKey.get(r.linked_key_id) : undefined);
    if (holder) held.set(r.id, holder);
  }
  return held;
}
