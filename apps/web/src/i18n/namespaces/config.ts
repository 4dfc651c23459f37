import { config as en } from '../en/config';
import { config as zh } from '../zh/config';

export const config = { en, zh };
