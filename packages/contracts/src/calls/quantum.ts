import { z } from 'zod';
import { defineCall } from '../call.js';

/**
 * The quantum (or any hardware) entropy source (docs/modules.md#quantum-entropy-source): its bytes are health-tested
 * (SP 800-90B §4.4 Repetition Count and Adaptive Proportion tests) and mixed into the server's
 * random generator, never used raw. Each server node reads the source on its own.
 */
export const quantumSourceTypes = ['device', 'file', 'network'] as const;
export type QuantumSourceType = (typeof quantumSourceTypes)[number];
export const quantumStatuses = ['normal', 'invalid', 'disabled'] as const;
export type QuantumStatus = (typeof quantumStatuses)[number];
/** Why a source is invalid. */
export const quantumFailures = ['rct', 'apt', 'startup', 'unreachable', 'short-read', 'exhausted'] as const;
export type QuantumFailure = (typeof quantumFailures)[number];

export const QUANTUM_DEFAULTS = {
  min_entropy: 7,
  block_bytes: 1024,
  interval_seconds: 10,
} as const;

export const QuantumSettings = z.object({
  enabled: z.boolean(),
  source_type: z
    .enum(quantumSourceTypes)
    .describe(
      'device: a character device such as /dev/hwrng; file: a regular file read in order, never twice (recorded output); network: an http(s) QRNG URL answering raw bytes',
    ),
  endpoint: z
    .string()
    .trim()
    .max(1024)
    .describe('the device or file path (absolute), or the http(s) URL; required when enabled'),
  min_entropy: z
    .number()
    .gt(0)
    .max(8)
    .describe(
      'the min-entropy the source claims, in bits per byte (0 < H ≤ 8); it sets the health-test cut-offs',
    ),
  block_bytes: z.number().int().min(64).max(65536).describe('bytes read, tested and mixed per check'),
  interval_seconds: z.number().int().min(1).max(86400).describe('seconds between two checks'),
});
export type QuantumSettings = z.infer<typeof QuantumSettings>;

export const QuantumState = QuantumSettings.extend({
  status: z.enum(quantumStatuses).describe('normal: mixed in; invalid: not used (OS entropy only); disabled'),
  failure: z.enum(quantumFailures).nullable().describe('why the status is invalid, else null'),
  detail: z.string().nullable().describe('the last failure in words (English), else null'),
  node: z.string().describe('the server node that answers: each node reads the source itself'),
  last_check: z.string().nullable().describe('ISO time of the last check on this node'),
  throughput: z
    .number()
    .nullable()
    .describe('bytes per second of the last read (block size over its duration)'),
  bytes_consumed: z.number().int().describe('bytes read, tested and mixed in on this node since it started'),
  failures: z.number().int().describe('failed checks on this node since it started'),
  rct_cutoff: z.number().int().describe('Repetition Count Test cut-off C = 1 + ⌈30 / H⌉ (α = 2⁻³⁰ per byte)'),
  apt_cutoff: z.number().int().describe('Adaptive Proportion Test cut-off for a 512-byte window (α = 2⁻³⁰)'),
  updated_at: z.string().nullable(),
});
export type QuantumState = z.infer<typeof QuantumState>;

export const quantumCalls = {
  status: defineCall({
    method: 'GET',
    path: '/v1/ksp/quantum/status',
    summary: "The entropy source's settings and this node's status",
    tag: 'quantum',
    access: 'quantum:read',
    scope: 'system',
    data: QuantumState,
  }),
  test: defineCall({
    method: 'POST',
    path: '/v1/ksp/quantum/test',
    summary:
      'Read the source now with the start-up health tests (1,024 samples and more) and report the outcome; a good test of an enabled source makes it normal',
    tag: 'quantum',
    access: 'quantum:write',
    scope: 'system',
    data: z.object({
      ok: z.boolean(),
      failure: z.enum(quantumFailures).nullable(),
      detail: z.string().nullable(),
      bytes: z.number().int().describe('bytes read'),
      ms: z.number().describe('milliseconds the read took'),
      state: QuantumState,
    }),
  }),
  update: defineCall({
    method: 'POST',
    path: '/v1/ksp/quantum/update',
    summary:
      'Change the entropy source; enabling runs the start-up tests first and refuses a source that fails them',
    tag: 'quantum',
    access: 'quantum:write',
    scope: 'system',
    body: QuantumSettings.partial().extend({ enabled: z.boolean() }),
    data: QuantumState,
  }),
};
