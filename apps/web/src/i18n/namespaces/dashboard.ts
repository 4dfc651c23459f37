import { dashboard as en } from '../en/dashboard';
import { dashboard as zh } from '../zh/dashboard';

export const dashboard = { en, zh };
