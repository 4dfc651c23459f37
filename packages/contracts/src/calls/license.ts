import { z } from 'zod';
import { defineCall } from '../call.js';
import { Id } from '../common.js';

/**
 * Licences (docs/modules.md#licences): a licence is a vendor-signed document bound to this installation's
 * lock code. Its text is `KSP1.<base64url(payload JSON)>.<base64url(Ed25519 signature of the
 * payload bytes)>`; the server verifies it with the vendor public key it ships.
 */
export const licenseFeatures = [
  'keys',
  'tde_clients',
  'kadp_clients',
  'rdm_clients',
  'kmip_clients',
  'sms_servers',
] as const;
export type LicenseFeature = (typeof licenseFeatures)[number];

/** What an installation may hold without a licence (README "Community limits"). */
export const COMMUNITY_LIMITS: Record<LicenseFeature, number> = {
  keys: 1000,
  tde_clients: 5,
  kadp_clients: 5,
  rdm_clients: 5,
  kmip_clients: 5,
  sms_servers: 1,
};

/** The prefix of a licence text (its format version). */
export const LICENSE_PREFIX = 'KSP1';
/** A licence's lock code for a trial licence: any installation. */
export const ANY_LOCK_CODE = 'any';

export const licenseStatuses = ['active', 'expired', 'not_yet_valid'] as const;
export type LicenseStatus = (typeof licenseStatuses)[number];

/** The signed payload of a licence. */
export const LicensePayload = z.object({
  id: z.string().trim().min(1).max(64).describe("the vendor's licence id"),
  customer: z.string().trim().min(1).max(200),
  lock_code: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .describe(`the lock code it is bound to, or "${ANY_LOCK_CODE}" (trial)`),
  bind_type: z.enum(['instance', 'cluster']),
  features: z
    .partialRecord(z.enum(licenseFeatures), z.number().int().min(0).max(1_000_000_000))
    .describe('quantity granted per feature; a feature left out keeps its community limit'),
  not_before: z.iso.datetime({ offset: true }),
  not_after: z.iso.datetime({ offset: true }),
  issued_at: z.iso.datetime({ offset: true }),
});
export type LicensePayload = z.infer<typeof LicensePayload>;

export const LicenseRow = LicensePayload.extend({
  row_id: Id.describe('this installation’s id of the activated licence (for delete)'),
  status: z.enum(licenseStatuses),
  text: z.string().describe('the licence characters as pasted'),
  activated_at: z.string(),
  activated_by: z.string(),
});
export type LicenseRow = z.infer<typeof LicenseRow>;

export const FeatureUsage = z.object({
  feature: z.enum(licenseFeatures),
  total: z
    .number()
    .int()
    .describe('authorised quantity: the sum over active licences, else the community limit'),
  used: z
    .number()
    .int()
    .describe(
      'counted from real objects: keys from the key tally (every state but destroyed); clients and SMS servers are 0 until those areas exist',
    ),
  source: z.enum(['license', 'community']),
  not_before: z.string().nullable().describe('earliest start of the active licences granting it'),
  not_after: z.string().nullable().describe('latest end of the active licences granting it'),
});
export type FeatureUsage = z.infer<typeof FeatureUsage>;

export const LicenseOverview = z.object({
  lock_code: z.string(),
  state: z
    .enum(['community', 'licensed', 'expired'])
    .describe(
      'community: no active or expired licence; expired: licences exist but none is active and one has expired (new objects are refused)',
    ),
  features: z.array(FeatureUsage),
  licenses: z.array(LicenseRow),
});
export type LicenseOverview = z.infer<typeof LicenseOverview>;

export const licenseCalls = {
  lockdata: defineCall({
    method: 'GET',
    path: '/v1/ksp/license/lockdata',
    summary:
      "This installation's lock code, which the vendor binds a licence to (shared by every node of a cluster)",
    tag: 'license',
    access: 'license:read',
    scope: 'system',
    data: z.object({ lock_code: z.string(), bind_type: z.enum(['instance', 'cluster']) }),
  }),
  list: defineCall({
    method: 'GET',
    path: '/v1/ksp/license/list',
    summary: 'The activated licences with their status, and each feature with its total and used quantity',
    tag: 'license',
    access: 'license:read',
    scope: 'system',
    data: LicenseOverview,
  }),
  activate: defineCall({
    method: 'POST',
    path: '/v1/ksp/license/activate',
    summary: 'Verify a licence (signature, lock code, dates) and activate it',
    tag: 'license',
    access: 'license:write',
    scope: 'system',
    changesAccess: false,
    body: z.object({ license: z.string().trim().min(1).max(16384).describe('the licence characters') }),
    data: LicenseRow,
  }),
  delete: defineCall({
    method: 'POST',
    path: '/v1/ksp/license/delete',
    summary: 'Remove an activated licence (its features fall back to other licences or the community limits)',
    tag: 'license',
    access: 'license:write',
    scope: 'system',
    changesAccess: false,
    body: z.object({ row_id: Id }),
    data: z.object({ deleted: z.number().int() }),
  }),
};
