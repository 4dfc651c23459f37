import { dashboard as en } from '../en/dashboard';

export const dashboard = { en, zh: () => import('../zh/dashboard').then((m) => m.dashboard) };
