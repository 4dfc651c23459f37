// What the key calls' files share; the package does not export it (src/index.ts).
import { z } from 'zod';
import { USAGE_BITS_TEXT } from '../algorithms.js';
import { APP_TOKEN, type TokenKind } from '../call.js';
import { Id } from '../common.js';
import { base64Text } from '../rules/text.js';
import { CteAttributes } from './key-rows.js';

/** The key pages' calls: a console session or a KMS sub-console token (`user/kms_token`). */
export const KMS_TOKENS: readonly TokenKind[] = ['session', 'kms'];
/** The tokens of a call that is also a KMIP operation's twin (docs/kmip.md): a KMIP client's certificate too. */
export const withKmip = (kinds: readonly TokenKind[]): readonly TokenKind[] => [...kinds, 'kmip'];
/** Key reads an application token may also make. */
export const KMS_APP_TOKENS: readonly TokenKind[] = [
  ...KMS_TOKENS,
  ...APP_TOKEN.filter((kind) => kind !== 'session'),
];

/** KMIP 2.x Cryptographic Usage Mask: the bits a key may be used for (docs/api.md, "Usage mask"). */
export const UsageMask = z
  .number()
  .int()
  .min(1)
  .max(0xffffff)
  .describe(
    `KMIP 2.x usage mask: the sum of these bits, all from one usage profile of the algorithm\n${USAGE_BITS_TEXT}`,
  );
export const KeyName = z
  .string()
  .trim()
  .min(1)
  .max(128)
  .regex(/^[\p{L}\p{N}][\p{L}\p{N} _.:@/-]*$/u);
export const Labels = z
  .record(z.string().trim().min(1).max(64), z.string().max(256))
  .refine((r) => Object.keys(r).length <= 32, { message: 'at most 32 labels' });
export const Base64 = base64Text(65536);

export const KeyId = z.object({ id: Id });
export const Flags = {
  exportable: z.boolean().default(false),
  deletable: z.boolean().default(true),
  description: z.string().trim().max(512).default(''),
  labels: Labels.default({}),
  cte: CteAttributes.nullable().default(null),
};
