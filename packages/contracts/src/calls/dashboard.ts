import { z } from 'zod';
import { defineCall } from '../call.js';

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
  /** Issued certificates that are valid now, and those of them ending within 30 days. */
  certificates: z.object({ valid: z.number().int(), expiring: z.number().int() }),
  recent: z.array(AuditRecord),
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
};
