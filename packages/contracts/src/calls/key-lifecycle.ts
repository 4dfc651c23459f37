import { z } from 'zod';
import { writeCallsOf } from '../call.js';
import { Id, IdsBody } from '../common.js';
import { Flags, KMS_TOKENS, KeyId, KeyName, Labels, UsageMask, withKmip } from './key-fields.js';
import { Algorithm, CteAttributes, KeyRow, revocationReasons } from './key-rows.js';

/** A key's life: generated, changed, moved between states, rotated, cloned, destroyed, deleted. */
/** Key changes that KMIP clients make too (each the twin of a KMIP operation). */
const kmipKeyWrite = writeCallsOf({ tag: 'key', access: 'key:write', tokens: withKmip(KMS_TOKENS) });
/** Key changes a console session or a KMS sub-console token makes (no KMIP twin). */
const keyWrite = writeCallsOf({ tag: 'key', access: 'key:write', tokens: KMS_TOKENS });

export const keyLifecycleCalls = {
  create: kmipKeyWrite({
    path: '/v1/ksp/key/create',
    summary: 'Generate a key (a key pair is a private and a public key linked to each other)',
    body: z.object({
      name: KeyName,
      algorithm: Algorithm,
      usage_mask: UsageMask,
      state: z.enum(['active', 'pre-active']).default('active'),
      activation_date: z.iso.datetime({ offset: true }).optional(),
      deactivation_date: z.iso.datetime({ offset: true }).optional(),
      ...Flags,
    }),
    data: KeyRow,
  }),
  update: kmipKeyWrite({
    path: '/v1/ksp/key/update',
    summary:
      'Rename, describe, label a key; allow export (once allowed it stays) or deletion; TDE attributes',
    body: z.object({
      id: Id,
      name: KeyName.optional(),
      description: z.string().trim().max(512).optional(),
      labels: Labels.optional(),
      exportable: z.boolean().optional(),
      deletable: z.boolean().optional(),
      cte: CteAttributes.nullable().optional(),
    }),
    data: KeyRow,
  }),
  activate: kmipKeyWrite({
    path: '/v1/ksp/key/activate',
    summary: 'Inactive → in use',
    body: KeyId,
    data: KeyRow,
  }),
  disable: kmipKeyWrite({
    path: '/v1/ksp/key/disable',
    summary: 'In use or inactive → disabled (a compromise reason marks it compromised for good)',
    body: z.object({
      id: Id,
      reason: z.enum(revocationReasons).default('unspecified'),
      message: z.string().trim().max(512).default(''),
    }),
    data: KeyRow,
  }),
  recover: keyWrite({
    path: '/v1/ksp/key/recover',
    summary: 'Disabled (not compromised) → in use',
    body: KeyId,
    data: KeyRow,
  }),
  addVersion: kmipKeyWrite({
    path: '/v1/ksp/key/add-version',
    summary: 'Rotate: new material becomes current; older versions keep decrypting and verifying',
    body: KeyId,
    data: KeyRow,
  }),
  clone: keyWrite({
    path: '/v1/ksp/key/clone',
    summary: 'A new key with the same algorithm, usage, flags and current material',
    body: z.object({ id: Id, new_name: KeyName }),
    data: KeyRow,
  }),
  destroy: kmipKeyWrite({
    path: '/v1/ksp/key/destroy',
    summary: 'Wipe the material of every version, keep the record (inactive or disabled keys only)',
    body: KeyId,
    data: KeyRow,
  }),
  delete: keyWrite({
    path: '/v1/ksp/key/delete',
    summary: 'Remove keys whose deletion is allowed and that nothing references',
    body: IdsBody,
    data: z.object({ deleted: z.number().int() }),
  }),
};
