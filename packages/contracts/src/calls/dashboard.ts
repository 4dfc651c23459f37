import { z } from 'zod';
import { algorithmInfo, type AlgorithmId } from '../algorithms.js';
import { defineCall } from '../call.js';
import { keyStateLabels } from './key-rows.js';
import { quantumStatuses } from './quantum.js';

/**
 * The classes the dashboard counts cryptographic operations in (after Fortanix's account
 * dashboard): each operation of the crypto API and each key made falls in one.
 */
export const opClasses = ['encrypt', 'decrypt', 'sign', 'verify', 'mac', 'wrap', 'keygen', 'other'] as const;
export type OpClass = (typeof opClasses)[number];

/** The algorithm families the dashboard groups keys in (docs/modules.md#dashboard: PQC and SM shown apart). */
export const keyFamilies = ['symmetric', 'RSA', 'EC', 'EdDSA', 'SM', 'PQC'] as const;
export type KeyFamily = (typeof keyFamilies)[number];

/** The dashboard family of an algorithm. */
export function keyFamilyOf(algorithm: AlgorithmId): KeyFamily {
  switch (algorithmInfo(algorithm).family) {
    case 'AES':
    case 'HMAC':
      return 'symmetric';
    case 'RSA':
      return 'RSA';
    case 'EC':
      return 'EC';
    case 'ED25519':
      return 'EdDSA';
    case 'SM2':
    case 'SM4':
      return 'SM';
    case 'ML-KEM':
    case 'ML-DSA':
    case 'SLH-DSA':
      return 'PQC';
  }
}

/** Days ahead the rotation figure looks (a key whose protect period ends within them is due). */
export const ROTATION_DUE_DAYS = 30;
/** A node that has not reported for this long is shown down. */
export const NODE_DOWN_SECONDS = 120;
/** The operation chart's ranges and the width of one point of each, in seconds. */
export const opRanges = ['24h', '7d'] as const;
export type OpRange = (typeof opRanges)[number];
export const OP_BUCKET_SECONDS: Record<OpRange, number> = { '24h': 300, '7d': 3600 };

export const AuditRecord = z.object({
  id: z.string(),
  at: z.string(),
  username: z.string(),
  domain: z.string(),
  action: z.string(),
  target: z.string(),
  result: z.enum(['success', 'failure']),
  source_ip: z.string(),
});

export const DashboardSummary = z.object({
  version: z.string(),
  node: z.string(),
  database: z.enum(['sqlite', 'postgres']),
  started_at: z.string(),
  uptime_seconds: z.number().int(),
  domain: z.string(),
  users: z.number().int(),
  domains: z.number().int(),
  audit_records: z.number().int(),
  active_sessions: z.number().int(),
  /** Issued certificates that are valid now, and those of them ending within 30, 60 and 90 days. */
  certificates: z.object({
    valid: z.number().int(),
    expiring: z.number().int().describe('valid and ending within 30 days'),
    expiring_60: z.number().int().describe('valid and ending within 60 days'),
    expiring_90: z.number().int().describe('valid and ending within 90 days'),
  }),
  recent: z.array(AuditRecord),
  keys: z.object({
    total: z.number().int().describe('every key, destroyed ones included'),
    by_state: z
      .array(z.object({ state: z.enum(keyStateLabels), count: z.number().int() }))
      .describe('one entry per state label, zeros included'),
    by_family: z
      .array(z.object({ family: z.enum(keyFamilies), count: z.number().int() }))
      .describe('one entry per family, zeros included; destroyed keys left out'),
    by_algorithm: z
      .array(z.object({ algorithm: z.string(), family: z.enum(keyFamilies), count: z.number().int() }))
      .describe('the algorithms that have keys (destroyed ones left out), most keys first'),
    rotation: z
      .object({
        overdue: z.number().int().describe('keys in use whose deactivation date has passed'),
        due: z.number().int().describe(`keys in use whose deactivation date is within the next 30 days`),
      })
      .describe(
        'keys due for rotation: keys in use by their deactivation date (the end of their protect period)',
      ),
  }),
  failed_logins_24h: z
    .number()
    .int()
    .describe("refused sign-ins in the last 24 hours (in a domain: its members' accounts)"),
  clients: z
    .object({
      healthy: z.number().int(),
      warning: z.number().int(),
      error: z.number().int(),
      revoked: z.number().int(),
    })
    .describe('transparent-encryption and application clients by status: all zero until clients exist'),
  quantum: z
    .object({ status: z.enum(quantumStatuses), node: z.string() })
    .describe("this node's entropy source"),
  nodes: z.array(
    z.object({
      name: z.string(),
      version: z.string(),
      started_at: z.string(),
      last_seen: z.string(),
      up: z.boolean().describe(`seen within the last ${NODE_DOWN_SECONDS} seconds`),
      uptime_seconds: z.number().int().describe('from its start to its last report'),
    }),
  ),
  license: z
    .object({
      state: z.enum(['community', 'licensed', 'expired']),
      keys_used: z.number().int(),
      keys_total: z.number().int(),
      days_left: z
        .number()
        .int()
        .nullable()
        .describe('whole days until the last active licence ends; null without an active licence'),
    })
    .nullable()
    .describe('the licence state and key usage (license/list); null outside system scope'),
  last_backup: z
    .object({
      id: z.string(),
      scope: z.enum(['system', 'domain', 'partial', 'key_rotation']),
      finished_at: z.string().describe('when it was completed (RFC 3339)'),
    })
    .nullable()
    .describe(
      'the last completed backup made here (not uploaded): of any domain in system scope, else of the current domain; null when none',
    ),
  hsm: z
    .object({
      root_provider: z.enum(['seal-file', 'pkcs11']),
      token_label: z.string().nullable().describe('the bound token label (pkcs11), else null'),
    })
    .nullable()
    .describe('what seals the root key (hsm/status); null outside system scope'),
});

const OpCounts = z.object(
  Object.fromEntries(opClasses.map((c) => [c, z.number().int()])) as Record<OpClass, z.ZodNumber>,
);

export const DashboardOperations = z.object({
  range: z.enum(opRanges),
  bucket_seconds: z.number().int().describe('the width of one point: 300 for 24h, 3600 for 7d'),
  from: z.string().describe('start of the first point (ISO time)'),
  to: z.string().describe('end of the last point (ISO time, the current bucket included)'),
  points: z.array(
    z.object({
      at: z.string().describe("the point's start (ISO time)"),
      total: z.number().int(),
      counts: OpCounts,
    }),
  ),
  totals: OpCounts,
  total: z.number().int(),
});

export const dashboardCalls = {
  summary: defineCall({
    method: 'GET',
    path: '/v1/ksp/dashboard/summary',
    summary: 'System figures for the dashboard',
    tag: 'dashboard',
    access: 'dashboard:read',
    data: DashboardSummary,
  }),
  operations: defineCall({
    method: 'GET',
    path: '/v1/ksp/dashboard/operations',
    summary: 'Cryptographic operations over the last 24 hours or 7 days, by class',
    tag: 'dashboard',
    access: 'dashboard:read',
    query: z.object({
      range: z.enum(opRanges).default('24h').describe('24h: 5-minute points; 7d: hourly points'),
    }),
    data: DashboardOperations,
  }),
};
