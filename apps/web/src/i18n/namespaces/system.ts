import { system as en } from '../en/system';

export const system = { en, zh: () => import('../zh/system').then((m) => m.system) };
