import { api } from '@ksp/contracts';
import { call } from './client';

export const dashboardKeys = {
  summary: ['dashboard', 'summary'] as const,
};

export function fetchDashboardSummary() {
  return call(api.dashboard.summary);
}
