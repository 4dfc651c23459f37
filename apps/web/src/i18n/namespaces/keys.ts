import { keys as en } from '../en/keys';

export const keys = { en, zh: () => import('../zh/keys').then((m) => m.keys) };
