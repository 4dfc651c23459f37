import { menu as en } from '../en/menu';

export const menu = { en, zh: () => import('../zh/menu').then((m) => m.menu) };
