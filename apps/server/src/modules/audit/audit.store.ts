import type { Executor } from '../../platform/db/database.js';

export async function countAudit(db: Executor, domainId: string | null): Promise<number> {
  let q = db.selectFrom('audit_log');
  if (domainId) q = q.where('domain_id', '=', domainId);
  const row = await q.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function recentAudit(db: Executor, domainId: string | null, limit: number) {
  let q = db.selectFrom('audit_log');
  if (domainId) q = q.where('domain_id', '=', domainId);
  return q
    .select(['id', 'at', 'username', 'domain_name', 'action', 'target', 'result', 'source_ip'])
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/**
 * Refused sign-ins (`user.login`, failure) since `since`, counted over the action/result index.
 * A refused sign-in belongs to no domain (none is entered): in a domain, those of its members'
 * accounts are counted.
 */
export async function countFailedLogins(
  db: Executor,
  domainId: string | null,
  since: string,
): Promise<number> {
  let q = db
    .selectFrom('audit_log')
    .where('action', '=', 'user.login')
    .where('result', '=', 'failure')
    .where('at', '>=', since);
  if (domainId)
    q = q.where('user_id', 'in', (eb) =>
      eb.selectFrom('user_domain').select('user_id').where('user_domain.domain_id', '=', domainId),
    );
  const row = await q.select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirst();
  return Number(row?.n ?? 0);
}
