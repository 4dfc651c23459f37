import { labels as en } from '../en/labels';

export const labels = { en, zh: () => import('../zh/labels').then((m) => m.labels) };
