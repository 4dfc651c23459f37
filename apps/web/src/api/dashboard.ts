import { api, type OpRange } from '@ksp/contracts';
import { call } from './client';

export const dashboardKeys = {
  summary: ['dashboard', 'summary'] as const,
  operations: (range: OpRange) => ['dashboard', 'operations', range] as const,
};

export function fetchDashboardSummary() {
  return call(api.dashboard.summary);
}

export function fetchDashboardOperations(range: OpRange) {
  return call(api.dashboard.operations, { query: { range } });
}
