import { layout as en } from '../en/layout';

export const layout = { en, zh: () => import('../zh/layout').then((m) => m.layout) };
