import { errors as en } from '../en/errors';

export const errors = { en, zh: () => import('../zh/errors').then((m) => m.errors) };
