import { layout as en } from '../en/layout';
import { layout as zh } from '../zh/layout';

export const layout = { en, zh };
