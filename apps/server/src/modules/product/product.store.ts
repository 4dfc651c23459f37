import type { Executor } from '../../platform/db/database.js';

/**
 * The domain's active and revoked clients counted by type: all, active ones seen since `warn`
 * (healthy), between `error` and `warn` (warning), before `error` (error), and revoked ones.
 */
export async function clientCounts(db: Executor, domainId: string, warn: string, error: string) {
  return db
    .selectFrom('client')
    .where('domain_id', '=', domainId)
    .where('state', 'in', ['active', 'revoked'])
    .select((eb) => {
      const active = eb('state', '=', 'active');
      const count = (when: ReturnType<typeof eb.and>) =>
        eb.fn.sum<string | number | null>(eb.case().when(when).then(1).else(0).end());
      return [
        'type',
        eb.fn.countAll<string | number>().as('total'),
        count(eb.and([active, eb('last_seen_at', '>=', warn)])).as('healthy'),
        count(eb.and([active, eb('last_seen_at', '<', warn), eb('last_seen_at', '>=', error)])).as('warning'),
        count(eb.and([active, eb('last_seen_at', '<', error)])).as('error'),
        count(eb.and([eb('state', '=', 'revoked')])).as('revoked'),
      ];
    })
    .groupBy('type')
    .execute();
}

/** The domain's keys by state, from the tally the key module keeps. */
export async function keyCountsByState(db: Executor, domainId: string) {
  return db
    .selectFrom('kms_key_tally')
    .where('domain_id', '=', domainId)
    .select((eb) => ['state', eb.fn.sum<string | number>('keys').as('n')])
    .groupBy('state')
    .execute();
}

/** The domain's rows of `table` (credentials or managed servers). */
export async function countInDomain(
  db: Executor,
  table: 'credential' | 'ssh_server',
  domainId: string,
): Promise<number> {
  const row = await db
    .selectFrom(table)
    .where('domain_id', '=', domainId)
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
