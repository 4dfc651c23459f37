import { config as en } from '../en/config';

export const config = { en, zh: () => import('../zh/config').then((m) => m.config) };
