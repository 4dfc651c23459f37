import { labels as en } from '../en/labels';
import { labels as zh } from '../zh/labels';

export const labels = { en, zh };
