import { sql, type SelectQueryBuilder } from 'kysely';

/** A page as the contract's list queries give it: `page` from 1, `page_size` rows. */
export interface PageQuery {
  page: number;
  page_size: number;
}

/** A window given as rows to skip and rows to take (stores that page for several callers). */
export interface RowWindow {
  offset: number;
  limit: number;
}

const windowOf = (page: PageQuery | RowWindow): RowWindow =>
  'offset' in page ? page : { offset: (page.page - 1) * page.page_size, limit: page.page_size };

/**
 * One page of a filtered query and how many rows the filter matches in all: `filtered` is the
 * query with its `where`s and no selection; `rows` adds the selection and the order (which must
 * be total, e.g. ending with the id, so that pages neither repeat nor skip a row).
 */
export async function pagedRows<DB, TB extends keyof DB, O, R>(
  filtered: SelectQueryBuilder<DB, TB, O>,
  page: PageQuery | RowWindow,
  rows: (q: SelectQueryBuilder<DB, TB, O>) => SelectQueryBuilder<DB, TB, R>,
): Promise<{ rows: R[]; total: number }> {
  const { offset, limit } = windowOf(page);
  const counted = (await filtered
    .select(sql<string | number>`count(*)`.as('ksp_total'))
    .executeTakeFirst()) as { ksp_total?: string | number } | undefined;
  const found = await rows(filtered).offset(offset).limit(limit).execute();
  return { rows: found, total: Number(counted?.ksp_total ?? 0) };
}
