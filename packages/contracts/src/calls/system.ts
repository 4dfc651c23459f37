import { z } from 'zod';
import { defineCall } from '../call.js';
import { Email, NewPassword, Username } from '../common.js';

export const SystemStatus = z.object({
  initialized: z.boolean(),
  activated: z.boolean(),
  sealed: z.boolean(),
  version: z.string(),
  /** Components generated so far by an initialization in progress (0 when none). */
  components_generated: z.number().int(),
  components_total: z.number().int(),
  /**
   * The server listens on a network address and is not yet activated: the first-run calls
   * need the one-time code printed on its console and written to `<data dir>/setup-code`.
   */
  setup_code_required: z.boolean(),
});

/** The one-time first-run code (only when `setup_code_required`); spaces, dashes and case are ignored. */
export const SetupCodeField = z.string().trim().max(64).optional();

export const KeyComponent = z.object({
  index: z.number().int(),
  total: z.number().int(),
  /** Hex of the 32-byte AES-256 component; shown once, never stored. */
  component: z.string(),
  /** First 3 bytes (hex) of AES-ECB(component, zero block). */
  kcv: z.string(),
});

export const systemCalls = {
  ready: defineCall({
    method: 'GET',
    path: '/v1/ksp/system/ready',
    summary:
      "Readiness, for a load balancer's health check: HTTP 200 only when this node is initialized, activated, unsealed and can write to its database; otherwise HTTP 503 with Retry-After",
    tag: 'system',
    access: 'public',
    beforeInit: true,
    data: z.object({
      ready: z.literal(true),
      node: z.string().describe('this node (KSP_NODE_NAME)'),
      database: z
        .string()
        .describe('the database host in use (for PostgreSQL, the primary this node writes to)'),
    }),
  }),
  live: defineCall({
    method: 'GET',
    path: '/v1/ksp/system/live',
    summary:
      'Liveness: HTTP 200 while the process answers, whatever the database (restart the node only when this fails)',
    tag: 'system',
    access: 'public',
    beforeInit: true,
    data: z.object({ node: z.string(), uptime_seconds: z.number().int() }),
  }),
  status: defineCall({
    method: 'GET',
    path: '/v1/ksp/system/status',
    summary: 'Initialization and activation state',
    tag: 'system',
    access: 'public',
    beforeInit: true,
    data: SystemStatus,
  }),
  initComponent: defineCall({
    method: 'POST',
    path: '/v1/ksp/system/init/component',
    summary: 'Generate the next root key component (shown once with its KCV)',
    tag: 'system',
    access: 'public',
    beforeInit: true,
    body: z.object({
      total: z.number().int().min(2).max(9).optional(),
      restart: z.boolean().optional(),
      setup_code: SetupCodeField,
    }),
    data: KeyComponent,
  }),
  initFinish: defineCall({
    method: 'POST',
    path: '/v1/ksp/system/init/finish',
    summary: 'Combine the components into the root key and seal it',
    tag: 'system',
    access: 'public',
    beforeInit: true,
    body: z.object({ setup_code: SetupCodeField }).optional(),
    data: z.object({ kcv: z.string(), seal_file: z.string() }),
  }),
  activate: defineCall({
    method: 'POST',
    path: '/v1/ksp/system/activate',
    summary: 'Create the first administrator',
    tag: 'system',
    access: 'public',
    beforeInit: true,
    body: z.object({ username: Username, password: NewPassword, email: Email, setup_code: SetupCodeField }),
    data: z.object({ username: z.string() }),
  }),
};
