import { z } from 'zod';
import { USAGE_BITS_TEXT } from '../algorithms.js';
import { defineCall } from '../call.js';
import { Id, PageQuery, pageOf } from '../common.js';
import { KMS_APP_TOKENS, KMS_TOKENS, KeyId, withKmip } from './key-fields.js';
import {
  Algorithm,
  KEY_TOTAL_CAP,
  KeyListRow,
  KeyRow,
  KeyVersionRow,
  UsageWordSchema,
  certificateKeysModes,
  keyObjectTypes,
  keyStateLabels,
} from './key-rows.js';

/** Reading keys: the list, one key, its versions and its audit trail. */
export const keyReadCalls = {
  list: defineCall({
    method: 'GET',
    path: '/v1/ksp/key/list',
    summary: 'Keys of the current domain (destroyed ones only when asked for)',
    tag: 'key',
    access: 'key:read',
    tokens: withKmip(KMS_APP_TOKENS),
    query: PageQuery.extend({
      name: z
        .string()
        .trim()
        .max(128)
        .optional()
        .describe(
          'Names containing this text (ASCII letters in any case on SQLite, case-sensitive on PostgreSQL)',
        ),
      name_prefix: z
        .string()
        .trim()
        .min(1)
        .max(128)
        .optional()
        .describe('Names starting with this text, case-sensitive; served by an index, so fast at any size'),
      state: z.enum(keyStateLabels).optional(),
      algorithm: Algorithm.optional(),
      type: z.enum(keyObjectTypes).optional(),
      usage: UsageWordSchema.optional().describe(
        `Only keys whose usage mask has this bit\n${USAGE_BITS_TEXT}`,
      ),
      certificate_keys: z
        .enum(certificateKeysModes)
        .default('hide')
        .describe(
          'Keys held by a certificate or CA (either half of the pair): `hide` (default) leaves them out, `show` lists them with the rest, `only` lists only them',
        ),
    }),
    data: pageOf(KeyListRow).extend({
      total: z
        .number()
        .int()
        .describe(
          [
            'Keys come newest first, then by name. `total` is exact when the filters are at most',
            '`state`, `algorithm` and `type` (a count kept per domain, as fast at a million keys as at',
            `ten). With \`name\`, \`name_prefix\` or \`usage\`, matches are counted up to ${KEY_TOTAL_CAP}:`,
            'beyond that `total` is that number and `total_capped` is true (later pages still answer).',
          ].join('\n'),
        ),
      total_capped: z
        .boolean()
        .describe(`true when counting stopped at ${KEY_TOTAL_CAP}: \`total\` is a lower bound`),
    }),
  }),
  detail: defineCall({
    method: 'GET',
    path: '/v1/ksp/key/detail',
    summary: 'One key',
    tag: 'key',
    access: 'key:read',
    tokens: withKmip(KMS_APP_TOKENS),
    query: KeyId,
    data: KeyRow,
  }),
  versions: defineCall({
    method: 'GET',
    path: '/v1/ksp/key/versions',
    summary: 'The versions of a key, newest first',
    tag: 'key',
    access: 'key:read',
    tokens: KMS_APP_TOKENS,
    query: KeyId,
    data: z.array(KeyVersionRow),
  }),
  audit: defineCall({
    method: 'GET',
    path: '/v1/ksp/key/audit',
    summary: "The key's audit trail",
    tag: 'key',
    access: 'key:read',
    tokens: KMS_TOKENS,
    query: PageQuery.extend({ id: Id }),
    data: pageOf(
      z.object({
        id: z.string(),
        at: z.string(),
        username: z.string(),
        action: z.string(),
        result: z.string(),
        source_ip: z.string(),
        count: z
          .number()
          .int()
          .min(1)
          .describe(
            'Operations the record stands for: identical successful cryptographic operations ' +
              '(same caller, address, operation and key version) committed together are recorded ' +
              'once with their number; every other record stands for 1',
          ),
      }),
    ),
  }),
};
