import { access as en } from '../en/access';

export const access = { en, zh: () => import('../zh/access').then((m) => m.access) };
