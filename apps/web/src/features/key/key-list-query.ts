import { api, USAGE_BITS } from '@ksp/contracts';
import type { KeyListQuery } from '../../api/key';

export const LIST_FILTERS = ['name', 'state', 'algorithm', 'type', 'usage', 'certificate_keys'] as const;
export type ListFilterName = (typeof LIST_FILTERS)[number];

function listQuerySchema() {
  const schema = api.key.list.query;
  if (!schema) throw new Error('key/list has no query schema');
  return schema;
}
const listShape = listQuerySchema().shape;
export const STATE_FILTERS = listShape.state.unwrap().options;
export const TYPE_FILTERS = listShape.type.unwrap().options;
/** Keys of certificates and CAs: hidden unless the filter says `show` or `only`. */
export const CERTIFICATE_KEYS_FILTERS = listShape.certificate_keys.removeDefault().options;
/** The usage filter offers the bits that gate an operation (no algorithm accepts the others). */
export const USAGE_FILTERS = listShape.usage
  .unwrap()
  .options.filter((word) => USAGE_BITS.some((bit) => bit.word === word && bit.gates.length > 0));

/** The list call's query from the URL's filters; values the contract would refuse are dropped. */
export function keyListQuery(page: number, pageSize: number, filters: Record<string, string>): KeyListQuery {
  const query: KeyListQuery = { page, page_size: pageSize };
  const name = filters.name?.trim();
  if (name) query.name = name.slice(0, 128);
  const state = listShape.state.safeParse(filters.state);
  if (state.success && state.data) query.state = state.data;
  const algorithm = listShape.algorithm.safeParse(filters.algorithm);
  if (algorithm.success && algorithm.data) query.algorithm = algorithm.data;
  const type = listShape.type.safeParse(filters.type);
  if (type.success && type.data) query.type = type.data;
  const usage = listShape.usage.safeParse(filters.usage);
  if (usage.success && usage.data) query.usage = usage.data;
  const held = listShape.certificate_keys.removeDefault().safeParse(filters.certificate_keys);
  if (held.success) query.certificate_keys = held.data;
  return query;
}
