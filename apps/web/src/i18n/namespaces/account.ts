import { account as en } from '../en/account';

export const account = { en, zh: () => import('../zh/account').then((m) => m.account) };
