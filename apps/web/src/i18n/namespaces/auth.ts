import { auth as en } from '../en/auth';

export const auth = { en, zh: () => import('../zh/auth').then((m) => m.auth) };
