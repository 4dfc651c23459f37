import { access as en } from '../en/access';
import { access as zh } from '../zh/access';

export const access = { en, zh };
