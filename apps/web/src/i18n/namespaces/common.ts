import { common as en } from '../en/common';

export const common = { en, zh: () => import('../zh/common').then((m) => m.common) };
