import { menu as en } from '../en/menu';
import { menu as zh } from '../zh/menu';

export const menu = { en, zh };
